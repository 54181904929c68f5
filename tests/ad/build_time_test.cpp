// The engine on values whose types are known only at run time, as tlaloc-grad sees a
// function's tensors at build time (docs/ENGINE_AT_BUILD_TIME.md). Every row of the
// gradient-check table is traced with its inputs' types unknown, differentiated by
// the engine in reverse and forward mode, and the derivative is then run op by op on
// the row's inputs: it must give the bits of the engine's derivative of the same
// function traced at the inputs' types. Where the row's function or a rule reads a
// rank, shape or dtype, the trace stops with UnknownTypeError; kRuns lists the rows
// that must get through, so a change either way shows.
#include <gtest/gtest.h>

#include <cstring>
#include <iostream>
#include <map>
#include <set>
#include <unordered_map>

#include "ad/engine.hpp"
#include "ad/gradcheck.hpp"
#include "core/tensor_impl.hpp"
#include "interp/interpreter.hpp"

namespace {

namespace tl = tlaloc;
namespace ir = tl::ir;
using tl::Tensor;

// An op with regions, which run_eagerly cannot call.
struct HasRegions {
  std::string op;
};

// Runs a function of unknown types op by op on host tensors: each op's types come
// from the tensors it is given, as the generated C++ would run it.
std::vector<Tensor> run_eagerly(const ir::Function& f, std::span<const Tensor> args) {
  std::unordered_map<ir::ValueId, Tensor> v;
  for (std::size_t i = 0; i < args.size(); ++i) v[f.body.args[i]] = args[i];
  for (const ir::Op& op : f.body.ops) {
    if (!op.regions.empty()) throw HasRegions{op.name()};
    std::vector<Tensor> in;
    for (ir::ValueId x : op.operands) in.push_back(v.at(x));
    const std::vector<Tensor> out = tl::detail::call(*op.def, in, op.attrs);
    if (out.size() != op.results.size())
      throw tl::Error("run_eagerly: op " + op.name() + ": result count differs");
    for (std::size_t i = 0; i < out.size(); ++i) v[op.results[i]] = out[i];
  }
  std::vector<Tensor> res;
  for (ir::ValueId x : f.body.results) res.push_back(v.at(x));
  return res;
}

bool floating(const Tensor& t) { return tl::is_floating(t.dtype()); }

// Fixed values of t's shape and dtype, distinct per `salt`.
Tensor probe(const Tensor& t, double salt) {
  const Tensor i = tl::arange(0, t.numel(), 1).astype(tl::DType::f64);
  return tl::reshape(tl::cos(i * 0.7 + salt), t.shape()).astype(t.dtype());
}

bool same_bits(const Tensor& a, const Tensor& b) {
  if (a.defined() != b.defined()) return false;
  if (!a.defined()) return true;
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  const std::size_t bytes = std::size_t(a.numel()) * tl::itemsize(a.dtype());
  return bytes == 0 || std::memcmp(a.raw_data(), b.raw_data(), bytes) == 0;
}

// The function of unknown types: the row traced on values of unknown type, or traced
// at its inputs' types and then its types forgotten (the ops and their attributes
// kept, as tlaloc-grad knows them from the source).
enum class Untyped { traced, forgotten };
ir::Function types_forgotten(const ir::Function& f) {
  ir::Function g;
  g.name = f.name;
  for (std::size_t v = 0; v < f.num_values(); ++v) g.add_value(tl::detail::unknown_type());
  g.body = f.body;
  return g;
}

enum class Outcome { runs, reads_types, has_regions, refused };
struct Result {
  Outcome outcome = Outcome::runs;
  std::string message;  // why it stopped
};

// One mode (vjp or jvp) of one row: the untyped derivative run eagerly against the
// typed one run by the interpreter.
Result check_mode(const gradcheck::Case& c, bool reverse, Untyped how) {
  const std::vector<Tensor>& xs = c.inputs;
  std::vector<bool> wrt;
  for (const Tensor& x : xs) wrt.push_back(floating(x));
  const auto fn = [&c](std::span<const Tensor> a) { return std::vector<Tensor>{c.fn(a)}; };
  std::vector<tl::detail::TensorType> typed, unknown(xs.size(), tl::detail::unknown_type());
  for (const Tensor& x : xs) typed.push_back(tl::detail::type_of(x));

  const ir::Function ft = ir::trace(c.name, typed, fn);
  const ir::Function dt = reverse ? tl::ad::vjp(ft, wrt) : tl::ad::jvp(ft, wrt);
  std::vector<Tensor> args = xs;
  const Tensor y = tl::interp::run(ft, xs)[0];
  if (reverse) args.push_back(probe(y, 0.3));
  for (std::size_t i = 0; i < xs.size(); ++i)
    if (!reverse && wrt[i]) args.push_back(probe(xs[i], 1.1 + double(i)));
  const std::vector<Tensor> want = tl::interp::run(dt, args);

  Result r;
  std::string stage = "tracing the function";
  try {
    const ir::Function fu = how == Untyped::traced ? ir::trace(c.name, unknown, fn) : types_forgotten(ft);
    stage = reverse ? "its vjp" : "its jvp";
    const ir::Function du = reverse ? tl::ad::vjp(fu, wrt) : tl::ad::jvp(fu, wrt);
    stage = "running it";
    const std::vector<Tensor> got = run_eagerly(du, args);
    EXPECT_EQ(got.size(), want.size()) << c.name;
    for (std::size_t i = 0; i < std::min(got.size(), want.size()); ++i)
      EXPECT_TRUE(same_bits(got[i], want[i]))
          << c.name << (reverse ? " vjp" : " jvp") << ": result " << i << " differs from the typed engine's";
  } catch (const tl::detail::UnknownTypeError& e) {
    r = {Outcome::reads_types, stage + ": " + e.what()};
  } catch (const HasRegions& e) {
    r = {Outcome::has_regions, "its derivative has an op with regions (" + e.op + "), not run here"};
  } catch (const tl::Error& e) {
    r = {Outcome::refused, stage + ": " + e.what()};
  }
  return r;
}

// The rows that run in both modes traced with types unknown.
// clang-format off
const std::set<std::string> kRunsTraced = {
    "binary/add", "binary/atan2", "binary/div", "binary/hypot", "binary/logaddexp", "binary/maximum",
    "binary/minimum", "binary/mul", "binary/pow", "binary/remainder", "binary/sub", "composition/swiglu_mlp",
    "index/embedding", "index/index_add", "index/scatter_add", "index/take_along_axis",
    "index/take_along_axis_backward", "index/take_along_axis_backward_broadcast",
    "index/take_along_axis_broadcast", "index/take_along_axis_call", "index/take_along_axis_call_broadcast",
    "index/take_axis1", "index/take_duplicates", "linalg/dot_general_backward_lhs",
    "linalg/dot_general_backward_rhs", "linalg/matmul_1d_1d", "linalg/matmul_1d_2d", "linalg/matmul_2d",
    "linalg/matmul_2d_1d", "linalg/matmul_backward_lhs", "linalg/matmul_backward_rhs",
    "linalg/matmul_batched_broadcast", "linalg/matmul_op_1d_2d", "linalg/matmul_op_batched_broadcast",
    "linalg/matmul_shared_rhs", "nn/avg_pool2d", "nn/avg_pool2d_backward", "nn/avg_pool2d_jvp",
    "nn/avg_pool2d_op", "nn/avg_pool2d_uneven", "nn/conv2d_backward_input", "nn/conv2d_backward_weight",
    "nn/conv2d_dilation_stride", "nn/conv2d_groups2", "nn/conv2d_groups2_stride2_dilation2",
    "nn/conv2d_lhs_dilation", "nn/conv2d_plain", "nn/conv2d_stride2_pad1", "nn/conv_transpose2d",
    "nn/conv_transpose2d_backward_input", "nn/conv_transpose2d_backward_weight", "nn/conv_transpose2d_op",
    "nn/max_pool2d", "nn/max_pool2d_backward", "nn/max_pool2d_jvp", "nn/max_pool2d_op",
    "nn/max_pool2d_overlap_pad", "nn/max_pool2d_uneven", "reduce/cumprod", "reduce/cumprod_axis0",
    "reduce/cumprod_zeros", "reduce/cumsum_axis0", "reduce/cumsum_last", "reduce/max", "reduce/min",
    "reduce/prod_all", "reduce/prod_axes_0_2", "reduce/prod_axis", "reduce/prod_zeros",
    "reduce/sum_all_keepdims", "reduce/sum_axis", "select/where", "shape/broadcast_to",
    "shape/broadcast_to_op", "shape/broadcast_to_shape_of", "shape/concat_call", "shape/concatenate",
    "shape/convert_like", "shape/cumsum_backward", "shape/dynamic_slice", "shape/dynamic_slice_call",
    "shape/dynamic_slice_like", "shape/dynamic_slice_traced", "shape/dynamic_update_slice",
    "shape/dynamic_update_slice_call", "shape/expand_dims", "shape/expand_dims_op", "shape/extreme_backward",
    "shape/extreme_jvp", "shape/index_add_op", "shape/optimization_barrier", "shape/pad_backward_constant",
    "shape/pad_backward_edge", "shape/pad_backward_so_far", "shape/pad_call_constant", "shape/pad_call_edge",
    "shape/pad_constant", "shape/pad_edge", "shape/repeat", "shape/repeat_backward_op", "shape/repeat_op",
    "shape/reshape_like", "shape/reverse", "shape/scatter_add_op", "shape/slice_backward_axis",
    "shape/slice_backward_box", "shape/slice_call_axis", "shape/slice_call_box", "shape/slice_negative",
    "shape/slice_steps", "shape/squeeze", "shape/squeeze_op", "shape/squeeze_op_all", "shape/stack",
    "shape/stack_call", "shape/sum_backward", "shape/sum_to_shape_of", "shape/sum_to_size_op", "shape/take_op",
    "shape/tile", "shape/tile_backward_op", "shape/tile_op", "shape/transpose", "shape/transpose_backward",
    "shape/transpose_backward_reversed", "spec/cbrt", "spec/clamp_scalar_bounds", "spec/clamp_tensor_bounds",
    "spec/divide", "spec/fmod", "spec/reduce_precision", "spec/round_nearest_afz", "special/bessel_i0e", "special/bessel_i0e_large",
    "special/bessel_i1e", "special/digamma", "special/erf_inv", "special/erfc", "special/lgamma",
    "special/lgamma_negative", "special/top_k", "unary/abs", "unary/acos",
    "unary/acosh", "unary/asin", "unary/asinh", "unary/atan", "unary/atanh", "unary/cos", "unary/cosh",
    "unary/erf", "unary/exp", "unary/expm1", "unary/gelu", "unary/gelu_tanh", "unary/log", "unary/log1p",
    "unary/neg", "unary/reciprocal", "unary/relu", "unary/rsqrt", "unary/sigmoid", "unary/silu", "unary/sin",
    "unary/sinh", "unary/softplus", "unary/sqrt", "unary/square", "unary/tan", "unary/tanh"};
// clang-format on

// With types forgotten: those, and the rows whose function reads a type where its
// rules do not, less the rows the other way round.
std::set<std::string> runs_forgotten() {
  std::set<std::string> rows = kRunsTraced;
  // clang-format off
  rows.insert({
      "composition/attention", "composition/attention_causal", "composition/attention_two_heads",
      "composition/cross_entropy_label_smoothing", "composition/layer_norm",
      "composition/log_sum_exp_naive_loss", "composition/logsumexp_loss", "composition/mlp_gelu_cross_entropy",
      "composition/mlp_relu_cross_entropy", "composition/mlp_tanh_cross_entropy",
      "composition/projectile_unrolled", "composition/rms_norm", "dot_general/batch_inside",
      "dot_general/batched", "dot_general/both_transposed", "dot_general/free_between", "dot_general/matmul",
      "dot_general/matvec", "dot_general/two_contractions", "linalg/dot_general_dims", "linalg/outer",
      "loss/bce_with_logits_mean", "loss/bce_with_logits_none", "loss/bce_with_logits_sum",
      "loss/cross_entropy_mean", "loss/cross_entropy_none", "loss/cross_entropy_one_sample",
      "loss/cross_entropy_smoothing_mean", "loss/cross_entropy_smoothing_none",
      "loss/cross_entropy_smoothing_sum", "loss/cross_entropy_spatial_mean", "loss/cross_entropy_spatial_none",
      "loss/cross_entropy_spatial_sum", "loss/cross_entropy_sum", "loss/huber_delta_mean",
      "loss/huber_delta_none", "loss/huber_delta_sum", "loss/huber_mean", "loss/huber_none", "loss/huber_sum",
      "loss/mse_mean", "loss/mse_none", "loss/mse_sum", "loss/nll_mean", "loss/nll_none", "loss/nll_sum",
      "nn/cross_entropy_one_hot", "nn/layer_norm", "nn/log_softmax", "nn/softmax", "nn/softmax_axis0",
      "reduce/logsumexp", "reduce/mean", "reduce/std", "reduce/std_ddof1", "reduce/var", "reduce/var_ddof1",
      "special/betainc", "special/igamma", "special/igammac", "special/polygamma", "special/zeta",
      "unary/convert"});
  // clang-format on
  // Rows whose function, traced, reads no type (the pools, slice, concat, pad and the
  // like record one op each), but whose ops recorded at known types have rules that do
  // (the pool op's, StableHLO slice's, concatenate's and pad's).
  const std::set<std::string> typed_only = {
      "nn/avg_pool2d",          "nn/avg_pool2d_uneven", "nn/max_pool2d",
      "nn/max_pool2d_backward", "nn/max_pool2d_jvp",    "nn/max_pool2d_overlap_pad",
      "nn/max_pool2d_uneven",   "shape/concatenate",    "shape/dynamic_update_slice",
      "shape/pad_constant",     "shape/pad_edge",       "shape/slice_negative",
      "shape/slice_steps",      "shape/stack"};
  for (const std::string& row : typed_only) rows.erase(row);
  return rows;
}

void check_table(Untyped how, const std::set<std::string>& expected) {
  std::set<std::string> runs;
  std::map<std::string, std::string> stopped;
  for (const gradcheck::Case& c : gradcheck::table()) {
    const Result rev = check_mode(c, true, how), fwd = check_mode(c, false, how);
    if (rev.outcome == Outcome::runs && fwd.outcome == Outcome::runs) {
      runs.insert(c.name);
      continue;
    }
    const Result& why = rev.outcome != Outcome::runs ? rev : fwd;
    EXPECT_NE(why.outcome, Outcome::refused)
        << c.name << ": stopped by an error other than a read of a type: " << why.message;
    stopped[c.name] = why.message;
  }
  std::string list;
  for (const std::string& n : runs) list += "\"" + n + "\", ";
  std::cout << runs.size() << " of " << gradcheck::table().size() << " rows run with types unknown:\n"
            << list << "\n";
  for (const auto& [n, why] : stopped) std::cout << "  " << n << ": " << why << "\n";
  EXPECT_EQ(runs, expected);
}

TEST(EngineAtBuildTime, RowsOfTheGradientTableRunWithTypesUnknown) {
  check_table(Untyped::traced, kRunsTraced);
}

// The rules alone: each row's ops as recorded at known types, with the types then
// forgotten, as tlaloc-grad sees the ops it lowers from the source.
TEST(EngineAtBuildTime, RowsWhoseRulesRunWithTypesForgotten) {
  check_table(Untyped::forgotten, runs_forgotten());
}

}  // namespace
