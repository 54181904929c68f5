// Control flow: while, if, case and optimization_barrier (StableHLO's ops of the
// same names). Their kernels run the op's regions through RegionCalls.
#include <cstring>

#include "core/check.hpp"
#include "ops/op.hpp"
#include "ops/rule.hpp"

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
        .stablehlo({"stablehlo.while", {}, "while"});

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
        .stablehlo({"stablehlo.if", {}, ""});

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
        .stablehlo({"stablehlo.case", {}, ""});

// An identity the compiler may not look through; on the host it is just that.
const OpDef& optimization_barrier_op =
    def_op("optimization_barrier")
        .shape_rule(same_as_inputs)
        .kernel([](std::span<const Tensor> in, const Attrs&, std::span<const TensorType>) {
          return std::vector<Tensor>(in.begin(), in.end());
        })
        .stablehlo({"stablehlo.optimization_barrier", {}, "elementwise"})
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
        });

}  // namespace
}  // namespace tlaloc::detail
