// Values written as StableHLO attributes, in (--args) and out (results).
#include "stablehlo/attr.hpp"
#include "stablehlo/stablehlo.hpp"
#include "stablehlo/types.hpp"

namespace tlaloc::stablehlo {

std::vector<Tensor> parse_arguments(std::string_view text) {
  Cursor c(text, "--args");
  c.skip_space();
  if (c.peek_raw() != '[') c.fail("expected a list of arguments, such as [dense<1> : tensor<2xi32>, ...]");
  const AttrNode list = parse_attr(c);
  c.skip_space();
  if (!c.at_end()) c.fail("expected the end of the argument list");
  std::vector<Tensor> out;
  for (const AttrNode& item : list.items) {
    if (item.kind != AttrNode::Kind::dense)
      c.fail_at(item.pos, "each argument must be a dense value, such as dense<1> : tensor<2xi32>");
    out.push_back(item.value);
  }
  return out;
}

std::string value_text(const Tensor& t) { return dense_text(t) + " : " + type_text({t.dtype(), t.shape()}); }

}  // namespace tlaloc::stablehlo
