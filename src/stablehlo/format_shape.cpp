// The pretty form JAX prints for stablehlo.slice: `stablehlo.slice %0 [1:3, 0:4:2]`,
// one start:limit[:stride] per axis (the stride left out when it is 1).
#include <fmt/format.h>

#include "stablehlo/syntax.hpp"

namespace tlaloc::stablehlo {
namespace {

using Ints = std::vector<std::int64_t>;

const Format slice(
    "slice",
    [](OpPrinter& p, const ir::Op& op, const StableHloSpelling& s, std::string& out) {
      const auto& start = op.attrs.get<Ints>("start_indices");
      const auto& limit = op.attrs.get<Ints>("limit_indices");
      const auto& stride = op.attrs.get<Ints>("strides");
      std::string ranges;
      for (std::size_t d = 0; d < start.size(); ++d) {
        ranges += fmt::format("{}{}:{}", d ? ", " : "", start[d], limit.at(d));
        if (stride.at(d) != 1) ranges += fmt::format(":{}", stride[d]);
      }
      out += fmt::format("{} {} [{}] : {}", s.name, p.uses(op.operands), ranges, p.functional_type(op));
    },
    [](OpParser& p, ParsedOp& op) {
      Cursor& c = p.cursor();
      op.operands.push_back(p.operand());
      Ints start, limit, stride;
      c.expect("[");
      if (!c.eat("]")) {
        do {
          c.skip_space();
          start.push_back(c.integer());
          c.expect(":");
          c.skip_space();
          limit.push_back(c.integer());
          std::int64_t step = 1;
          if (c.eat(":")) {
            c.skip_space();
            step = c.integer();
          }
          stride.push_back(step);
        } while (c.eat(","));
        c.expect("]");
      }
      op.attrs.set("start_indices", start);
      op.attrs.set("limit_indices", limit);
      op.attrs.set("strides", stride);
      p.trailing_type(op);
    });

}  // namespace
}  // namespace tlaloc::stablehlo
