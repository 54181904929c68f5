// while_stacked: a while loop (regions: cond, body) that also returns, for each
// carried value, the values it had at the start of every iteration, stacked along a
// new leading axis whose size, the trip count, is known only when it runs. Reverse
// mode through tl::while_loop records it in place of the while (src/ad/control.cpp)
// and walks the stacks backward. It runs on the host interpreter only: StableHLO
// has no tensor whose size a loop decides.
#include <fmt/format.h>

#include "core/check.hpp"
#include "ir/op.hpp"
#include "ops/cpp_spelling.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::detail {
namespace {

std::vector<Tensor> run_while_stacked(std::span<const Tensor> in, const Attrs&, std::span<const TensorType> out,
                                      const RegionCalls& regions) {
  const std::size_t n = in.size();
  std::vector<Tensor> carry(in.begin(), in.end());
  std::vector<std::vector<Tensor>> history(n);
  for (;;) {
    const Tensor p = regions.call(0, carry).at(0);
    if (p.dtype() != DType::boolean || p.numel() != 1)
      fail<ShapeError>("while_loop", "the condition must be a bool scalar, got {}{}", dtype_name(p.dtype()),
                       shape_string(p.shape()));
    if (!p.item<bool>()) break;
    for (std::size_t i = 0; i < n; ++i) history[i].push_back(carry[i]);
    std::vector<Tensor> next = regions.call(1, carry);
    for (std::size_t i = 0; i < n; ++i) {
      if (type_of(next[i]) != type_of(carry[i]))
        fail<ShapeError>("while_loop", "the body changed carry {} from {}{} to {}{}", i, dtype_name(carry[i].dtype()),
                         shape_string(carry[i].shape()), dtype_name(next[i].dtype()), shape_string(next[i].shape()));
      carry[i] = std::move(next[i]);
    }
  }
  std::vector<Tensor> results = carry;
  for (std::size_t i = 0; i < n; ++i) {
    if (history[i].empty()) {
      Shape s = out[n + i].shape;
      s[0] = 0;
      results.push_back(zeros(s, out[n + i].dtype));
    } else {
      results.push_back(stack(history[i], 0));
    }
  }
  return results;
}

// As the while loop, keeping each carry's value at the start of every iteration
// in a vector, stacked after the loop (or an empty stack when it never ran).
std::string while_stacked_spelling(CppOp& op) {
  const std::size_t n = op.num_operands();
  const std::vector<std::string> carry = cpp_carry(op, 0, n);
  std::vector<std::string> history;
  for (std::size_t i = 0; i < n; ++i) history.push_back(op.fresh("history"));
  op.line(fmt::format("std::vector<tl::Tensor> {};", cpp_list(history)));
  op.open("while (true)");
  const std::string p = op.region(0, carry).at(0);
  op.line(fmt::format("if (!{}.item<bool>()) break;", p));
  for (std::size_t i = 0; i < n; ++i) op.line(fmt::format("{}.push_back({});", history[i], carry[i]));
  cpp_assign(op, carry, op.region(1, carry));
  op.close("}");
  for (std::size_t i = 0; i < n; ++i) {
    Shape empty = op.result_type(n + i).shape;
    empty[0] = 0;
    op.line(fmt::format("const tl::Tensor {} = {}.empty() ? tl::zeros({}, {}) : tl::stack({}, 0);", op.result(n + i),
                        history[i], cpp_shape(empty), cpp_dtype(op.result_type(n + i).dtype), history[i]));
  }
  return "";
}

[[maybe_unused]] const OpDef& while_stacked_op =
    def_op("while_stacked")
        .cpp(while_stacked_spelling)
        .region_kernel(2, run_while_stacked)
        .lower_with_regions([](std::span<const Tensor>, const Attrs&, const RegionInliner&) -> std::vector<Tensor> {
          fail<ValueError>("while_loop",
                           "reverse mode through a while loop saves every iteration's values on the host; StableHLO "
                           "cannot hold a trip count decided at run time, so this gradient runs on the interpreter "
                           "only (use fori_loop or scan when the trip count is known)");
        });

}  // namespace
}  // namespace tlaloc::detail
