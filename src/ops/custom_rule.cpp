// custom_rule: a function with a derivative rule of its own (tl::custom_vjp,
// tl::custom_jvp). Region 0 is the primal computation, which is what runs and what
// lowering inlines; the AD engine looks the rule up by its "rule" attribute
// (src/ad/custom.cpp).
#include <fmt/format.h>

#include "ops/cpp_spelling.hpp"
#include "ops/op.hpp"

namespace tlaloc::detail {
namespace {

// What runs is the primal: its statements in place, the results named after them.
std::string custom_rule_spelling(CppOp& op) {
  std::vector<std::string> args;
  for (std::size_t i = 0; i < op.num_operands(); ++i) args.push_back(op.operand(i));
  const std::vector<std::string> res = op.region(0, args);
  for (std::size_t i = 0; i < res.size(); ++i) op.line(fmt::format("const tl::Tensor {} = {};", op.result(i), res[i]));
  return "";
}

[[maybe_unused]] const OpDef& custom_rule_op =
    def_op("custom_rule")
        .cpp(custom_rule_spelling)
        .region_kernel(1,
                       [](std::span<const Tensor> in, const Attrs&, std::span<const TensorType>,
                          const RegionCalls& regions) { return regions.call(0, in); })
        .lower_with_regions([](std::span<const Tensor> in, const Attrs&, const RegionInliner& inline_region) {
          return inline_region(0, in);
        });

}  // namespace
}  // namespace tlaloc::detail
