// Control flow: while, if, case and optimization_barrier (StableHLO's ops of the
// same names). Their kernels run the op's regions through RegionCalls.
#include <fmt/format.h>

#include <cstring>

#include "core/check.hpp"
#include "ir/op.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/rule.hpp"
#include "tlaloc/lax.hpp"

namespace tlaloc::detail {
namespace {

using Kind = StableHloAttr::Kind;

std::vector<TensorType> same_as_inputs(std::span<const TensorType> in, const Attrs&) {
  return {in.begin(), in.end()};
}

// A region's i1 result (while's cond, if's predicate), read as a host bool.
bool scalar_bool(std::string_view op, const Tensor& t) {
  if (t.dtype() != DType::boolean || t.numel() != 1)
    fail<ShapeError>(op, "needs a tensor<i1> condition, got {}{}", dtype_name(t.dtype()),
                     shape_string(t.shape()));
  return *static_cast<const bool*>(t.raw_data());
}

std::vector<Tensor> check_branch(std::string_view op, std::vector<Tensor> out,
                                 std::span<const TensorType> want) {
  if (out.size() != want.size())
    fail<ShapeError>(op, "a branch returned {} values for {} results", out.size(), want.size());
  for (std::size_t i = 0; i < out.size(); ++i)
    if (type_of(out[i]) != want[i])
      fail<ShapeError>(op, "result {} of the branch is {}{} where {}{} was declared", i,
                       dtype_name(out[i].dtype()), shape_string(out[i].shape()), dtype_name(want[i].dtype),
                       shape_string(want[i].shape));
  return out;
}

// Printed as `while (true)`: the condition's statements, a break, the body's.
std::string while_spelling(CppOp& op) {
  const std::vector<std::string> carry = cpp_carry(op, 0, op.num_operands());
  op.open("while (true)");
  const std::string p = op.region(0, carry).at(0);
  op.line(fmt::format("if (!{}.item<bool>()) break;", p));
  cpp_assign(op, carry, op.region(1, carry));
  op.close("}");
  return "";
}

// The branches as the two blocks of a C++ if on the predicate's value.
std::string if_spelling(CppOp& op) {
  cpp_declare_results(op);
  std::vector<std::string> results;
  for (std::size_t i = 0; i < op.num_results(); ++i) results.push_back(op.result(i));
  op.open(fmt::format("if ({}.item<bool>())", op.operand(0)));
  cpp_assign(op, results, op.region(0, {}));
  op.reopen("} else {");
  cpp_assign(op, results, op.region(1, {}));
  op.close("}");
  return "";
}

// if / else if on the index; out-of-range indices take the last branch.
std::string case_spelling(CppOp& op) {
  cpp_declare_results(op);
  std::vector<std::string> results;
  for (std::size_t i = 0; i < op.num_results(); ++i) results.push_back(op.result(i));
  const std::string index = op.fresh("branch");
  op.line(fmt::format("const std::int32_t {} = {}.item<std::int32_t>();", index, op.operand(0)));
  const std::size_t n = op.num_regions();
  // The last branch also takes the indices outside [0, n).
  for (std::size_t k = 0; k < n; ++k) {
    const std::string test = fmt::format("if ({} == {})", index, k);
    if (n == 1)
      op.open("");
    else if (k == 0)
      op.open(test);
    else
      op.reopen(k + 1 == n ? "} else {" : fmt::format("}} else {} {{", test));
    cpp_assign(op, results, op.region(k, {}));
  }
  op.close("}");
  return "";
}

// cond decides, body maps the loop-carried values to their next values.
const OpDef& while_op =
    def_op("while")
        .shape_rule(same_as_inputs)
        .region_kernel(2,
                       [](std::span<const Tensor> in, const Attrs&, std::span<const TensorType> out,
                          const RegionCalls& regions) {
                         std::vector<Tensor> vals(in.begin(), in.end());
                         while (scalar_bool("stablehlo.while", regions.call(0, vals).at(0)))
                           vals = check_branch("stablehlo.while", regions.call(1, vals), out);
                         return vals;
                       })
        .stablehlo({"stablehlo.while", {}, "while"})
        .cpp(while_spelling);

// No shape rule: the results are declared by the text (or the builder).
const OpDef& if_op =
    def_op("if")
        .inputs(1)
        .region_kernel(2,
                       [](std::span<const Tensor> in, const Attrs&, std::span<const TensorType> out,
                          const RegionCalls& regions) {
                         const bool pred = scalar_bool("stablehlo.if", in[0]);
                         return check_branch("stablehlo.if", regions.call(pred ? 0 : 1, {}), out);
                       })
        .stablehlo({"stablehlo.if", {}, ""})
        .cpp(if_spelling);

// The spec sends an index outside [0, n) to the last branch.
const OpDef& case_op =
    def_op("case")
        .inputs(1)
        .region_kernel(-1,
                       [](std::span<const Tensor> in, const Attrs&, std::span<const TensorType> out,
                          const RegionCalls& regions) {
                         const Tensor& index = in[0];
                         if (index.dtype() != DType::i32 || index.numel() != 1)
                           fail<ShapeError>("stablehlo.case", "needs a tensor<i32> index, got {}{}",
                                            dtype_name(index.dtype()), shape_string(index.shape()));
                         if (regions.size() == 0)
                           fail<ValueError>("stablehlo.case", "needs at least one branch");
                         std::int32_t i = 0;
                         std::memcpy(&i, index.raw_data(), sizeof i);
                         const std::size_t n = regions.size();
                         const std::size_t branch = i < 0 || std::size_t(i) >= n ? n - 1 : std::size_t(i);
                         return check_branch("stablehlo.case", regions.call(branch, {}), out);
                       })
        .stablehlo({"stablehlo.case", {}, ""})
        .cpp(case_spelling);

// An identity the compiler may not look through; on the host it is just that.
const OpDef& optimization_barrier_op =
    def_op("optimization_barrier")
        .result_count([](std::size_t n, const Attrs&) -> std::size_t { return n; })
        .shape_rule(same_as_inputs)
        .kernel([](std::span<const Tensor> in, const Attrs&, std::span<const TensorType>) {
          return std::vector<Tensor>(in.begin(), in.end());
        })
        .stablehlo({"stablehlo.optimization_barrier", {}, "type_list"})
        // The identity for derivatives too: tangents and cotangents pass unchanged.
        .jvp([](const Rule& r) {
          std::vector<Tensor> t;
          for (std::size_t i = 0; i < r.num_in(); ++i) t.push_back(r.tangent(i));
          return t;
        })
        .vjp([](const Rule& r) {
          std::vector<Tensor> g;
          for (std::size_t i = 0; i < r.num_out(); ++i) g.push_back(r.cotangent(i));
          return g;
        })
        .cpp([](CppOp& op) {
          std::vector<std::string> xs;
          for (std::size_t i = 0; i < op.num_operands(); ++i) xs.push_back(op.operand(i));
          return fmt::format("tl::lax::optimization_barrier({{{}}})", cpp_list(xs));
        });

}  // namespace
}  // namespace tlaloc::detail

namespace tlaloc {
std::vector<Tensor> lax::optimization_barrier(const std::vector<Tensor>& xs) {
  return detail::call(detail::optimization_barrier_op, xs);
}
}  // namespace tlaloc
