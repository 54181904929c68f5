#include "cppgen/programs.hpp"

#include <functional>

#include "ad/engine.hpp"
#include "ad/gradcheck.hpp"
#include "ad/programs.hpp"
#include "ir/passes.hpp"
#include "support/training_runs.hpp"
#include "tlaloc/lax.hpp"

namespace cppgen_table {
namespace {

using tl::Tensor;
using tl::detail::TensorType;
using Fn = std::function<Tensor(std::span<const Tensor>)>;

std::vector<TensorType> types_of(const std::vector<Tensor>& xs) {
  std::vector<TensorType> t;
  for (const Tensor& x : xs) t.push_back(tl::detail::type_of(x));
  return t;
}

tl::ir::Function traced(const std::string& name, const std::vector<Tensor>& in, const Fn& fn) {
  return tl::ad::trace(name, types_of(in), [&](std::span<const Tensor> a) { return std::vector<Tensor>{fn(a)}; }).f;
}

std::vector<bool> floating(const std::vector<Tensor>& in) {
  std::vector<bool> w;
  for (const Tensor& x : in) w.push_back(tl::is_floating(x.dtype()));
  return w;
}

// Directions (tangents, cotangents) of the given types, fixed by seed.
std::vector<Tensor> directions(const std::vector<TensorType>& types, std::uint64_t seed) {
  std::vector<Tensor> out;
  for (const TensorType& t : types) out.push_back(gradcheck::uniform(t.shape, -1, 1, seed++).astype(t.dtype));
  return out;
}

std::vector<Tensor> with(std::vector<Tensor> a, const std::vector<Tensor>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The pullback (as tl::vjp runs it) and the JVP of fn at `in`.
void add_vjp_jvp(std::vector<Program>& out, const std::string& name, const std::vector<Tensor>& in, const Fn& fn,
                 std::uint64_t seed) {
  const tl::ir::Function f = traced(name, in, fn);
  const std::vector<bool> wrt = floating(in);
  out.push_back({name + ":vjp", tl::ad::vjp_program(f, wrt), with(in, directions(f.result_types(), seed))});
  std::vector<TensorType> tangent_types;
  for (std::size_t i = 0; i < in.size(); ++i)
    if (wrt[i]) tangent_types.push_back(tl::detail::type_of(in[i]));
  out.push_back({name + ":jvp", tl::ad::jvp_program(f, wrt), with(in, directions(tangent_types, seed + 100))});
}

// The gradient as tl::grad runs it (f returns a scalar).
void add_grad(std::vector<Program>& out, const std::string& name, const std::vector<Tensor>& in, const Fn& fn) {
  const tl::ir::Function f = traced(name, in, fn);
  out.push_back({name + ":grad", tl::ir::optimize(tl::ad::grad_program(f, floating(in))), in});
}

std::vector<Tensor> as_f32(const std::vector<Tensor>& in) {
  std::vector<Tensor> out;
  for (const Tensor& x : in) out.push_back(x.dtype() == tl::DType::f64 ? x.astype(tl::DType::f32) : x);
  return out;
}

const auto stable_logsumexp = tl::custom_vjp(
    [](const Tensor& x) { return tl::logsumexp(x); },
    [](const Tensor& x) {
      const Tensor y = tl::logsumexp(x);
      return std::pair{y, std::vector<Tensor>{x, y}};
    },
    [](const std::vector<Tensor>& res, const Tensor& ct) { return std::vector<Tensor>{ct * tl::exp(res[0] - res[1])}; },
    "stable_logsumexp");

// y = x^3 / 2 over f64 as a user's kernel, its vjp another kernel: printed code calls
// both by name, which reaches these in the generator and in the table test alike
// (both link this file).
const tl::Kernel& printed_cube() {
  const auto same = [](std::span<const tl::TensorType> in) { return std::vector<tl::TensorType>{in[0]}; };
  static const tl::Kernel vjp = tl::kernel("cppgen.cube_vjp").shape(same).cpu([](const tl::KernelCall& call) {
    const double* x = call.arg(0).data<double>();
    const double* g = call.arg(1).data<double>();
    double* y = call.result<double>(0);
    for (std::int64_t i = 0; i < call.arg(0).numel(); ++i) y[i] = 1.5 * x[i] * x[i] * g[i];
  });
  static const tl::Kernel cube =
      tl::kernel("cppgen.cube")
          .shape(same)
          .cpu([](const tl::KernelCall& call) {
            const double* x = call.arg(0).data<double>();
            double* y = call.result<double>(0);
            for (std::int64_t i = 0; i < call.arg(0).numel(); ++i) y[i] = 0.5 * x[i] * x[i] * x[i];
          })
          .vjp([](const tl::KernelGrad& g) { return std::vector<Tensor>{vjp(g.arg(0), g.cotangent(0))}; });
  return cube;
}

// Control flow, a custom rule, a chain long enough to be fused, second order.
void add_extras(std::vector<Program>& out) {
  const Tensor x = gradcheck::uniform({2, 3}, -1, 1, 9001);
  const Tensor w = gradcheck::uniform({3, 4}, -1, 1, 9002);
  add_grad(out, "extra/cond", {x}, [](std::span<const Tensor> a) {
    return tl::sum(tl::cond(tl::sum(a[0]) > 0.0, [&] { return a[0] * a[0]; }, [&] { return tl::sin(a[0]); }));
  });
  add_grad(out, "extra/while_loop", {x}, [](std::span<const Tensor> a) {
    const std::vector<Tensor> r = tl::while_loop([](const std::vector<Tensor>& s) { return tl::sum(tl::abs(s[0])) < 20.0; },
                                                 [](const std::vector<Tensor>& s) {
                                                   return std::vector<Tensor>{s[0] * 1.5 + tl::tanh(s[0]), s[1] + 1.0};
                                                 },
                                                 std::vector<Tensor>{a[0], tl::scalar_tensor(0.0, a[0].dtype())});
    return tl::sum(r[0] * r[0]) + r[1];
  });
  add_grad(out, "extra/fori_loop", {x, gradcheck::uniform({3, 3}, -1, 1, 9008)}, [](std::span<const Tensor> a) {
    const Tensor h = tl::fori_loop(0, 3, [&](const Tensor& i, const Tensor& s) {
      return tl::tanh(tl::matmul(s, a[1]) * i.astype(s.dtype()) + s);
    }, a[0]);
    return tl::sum(h);
  });
  add_grad(out, "extra/scan", {gradcheck::uniform({5, 3}, -1, 1, 9003), gradcheck::uniform({3}, -1, 1, 9004)},
           [](std::span<const Tensor> a) {
             auto [c, ys] = tl::scan([](const Tensor& carry, const Tensor& xi) {
               const Tensor next = tl::sin(carry) * xi + xi;
               return std::pair{next, tl::exp(next)};
             }, a[1], a[0]);
             const auto [c2, ys2] = tl::scan([](const Tensor& carry, const Tensor& xi) {
               return std::pair{carry + xi, carry * xi};
             }, c, ys, true);
             return tl::sum(c2) + tl::sum(ys2);
           });
  add_grad(out, "extra/custom_vjp", {x}, [](std::span<const Tensor> a) { return stable_logsumexp(a[0] * 2.0); });
  add_grad(out, "extra/kernel", {x},
           [](std::span<const Tensor> a) { return tl::sum(tl::sin(printed_cube()(a[0]))); });
  add_grad(out, "extra/mlp", {x, w, gradcheck::uniform({4}, -1, 1, 9005)}, [](std::span<const Tensor> a) {
    const Tensor h = tl::tanh(tl::matmul(a[0], a[1]) + a[2]);
    return tl::mean(tl::logsumexp(h, 1) - tl::sum(tl::softmax(h, 1) * h, 1));
  });
  // 384 x 384 elements: above the interpreter's fusion threshold, so the
  // interpreted side runs fused chunks and the printed side whole ops.
  const Tensor big = gradcheck::uniform({384, 384}, -1, 1, 9006).astype(tl::DType::f32);
  add_grad(out, "extra/fused_chain_f32", {big}, [](std::span<const Tensor> a) {
    const Tensor y = tl::exp(tl::tanh(a[0]) * 0.5) * a[0] + tl::sigmoid(a[0] * a[0] - 0.25);
    return tl::sum(y * y);
  });
  // The small language model's next-token loss (tl::nn::capture's grad_source prints
  // this program): embedding, rotary attention with grouped-query heads, SwiGLU.
  {
    const tl::nn::DecoderLM lm = tltest::small_lm();
    const tl::nn::Params p = lm.init(tl::random::key(21));
    const Tensor tokens = tl::random::randint(tl::random::key(22), {2, 7}, 0, lm.vocab);
    std::vector<Tensor> in = p.tensors();
    in.insert(in.end(), {tl::slice(tokens, 1, 0, 6), tl::slice(tokens, 1, 1, 7)});
    add_grad(out, "extra/decoder_lm", in, [lm, names = p.names()](std::span<const Tensor> a) {
      const std::size_t n = names.size();
      const tl::nn::Params q = tl::nn::Params::from(names, std::vector<Tensor>(a.begin(), a.begin() + std::ptrdiff_t(n)));
      return tl::nn::cross_entropy(tl::reshape(lm(q, a[n]), {-1, lm.vocab}), tl::reshape(a[n + 1], {-1}));
    });
  }
  const tl::ir::Function f = traced("extra/hvp", {x}, [](std::span<const Tensor> a) {
    return tl::sum(tl::tanh(a[0]) * tl::exp(a[0] * 0.5));
  });
  out.push_back({"extra/hvp:hvp", tl::ad::hvp_program(f, 0), {x, directions({tl::detail::type_of(x)}, 9007)[0]}});
}

// A program as traced, no derivative: ops that only tl::lax or a parsed module
// records (bits, random numbers, dynamic shapes, select_and_scatter, ...).
void add_plain(std::vector<Program>& out, const std::string& name, const std::vector<Tensor>& in,
               const Fn& fn) {
  out.push_back({name, traced(name, in, fn), in});
}

using Ts = std::vector<Tensor>;
using I64s = std::vector<std::int64_t>;

void add_bits_and_random(std::vector<Program>& out) {
  const Tensor i = tl::tensor(std::vector<std::int32_t>{12, -8, 255, 1, 0, -1}, {6});
  const Tensor n = tl::tensor(std::vector<std::int32_t>{1, 3, 40, 0, 31, -2}, {6});
  add_plain(out, "lax/bits", {i, n}, [](std::span<const Tensor> a) {
    namespace lax = tl::lax;
    const Tensor b =
        lax::bitwise_xor(lax::bitwise_and(a[0], a[1]), lax::bitwise_or(a[0], lax::bitwise_not(a[1])));
    return lax::shift_left(b, a[1]) + lax::shift_right_logical(a[0], a[1]) +
           lax::shift_right_arithmetic(a[0], a[1]) + lax::count_leading_zeros(a[0]) + lax::popcnt(b) +
           lax::bitcast_convert(a[0].astype(tl::DType::f32) * 0.5, tl::DType::i32);
  });
  const Tensor shape = tl::tensor(std::vector<std::int64_t>{2, 3}, {2});
  add_plain(out, "lax/rng",
            {tl::scalar_tensor(-1.0, tl::DType::f32), tl::scalar_tensor(2.5, tl::DType::f32), shape},
            [](std::span<const Tensor> a) {
              return tl::lax::rng(a[0], a[1], a[2], "UNIFORM", {2, 3}) *
                     tl::lax::rng(a[0], a[1], a[2], "NORMAL", {2, 3});
            });
  const Tensor state = tl::tensor(std::vector<std::uint64_t>{0x0123456789abcdefULL, 7}, {2});
  add_plain(out, "lax/rng_bit_generator", {state}, [](std::span<const Tensor> a) {
    return tl::lax::rng_bit_generator(a[0], "THREE_FRY", {2, 3}, tl::DType::u32)[1];
  });
}

void add_windows_and_norms(std::vector<Program>& out) {
  const Tensor x = gradcheck::uniform({2, 3, 4}, -1, 1, 9101);
  add_plain(out, "lax/batch_norm_grad",
            {x, gradcheck::uniform({3}, 0.5, 1.5, 9102), gradcheck::uniform({3}, -1, 1, 9103),
             gradcheck::uniform({3}, 0.5, 1.5, 9104), gradcheck::uniform({2, 3, 4}, -1, 1, 9105)},
            [](std::span<const Tensor> a) {
              const Ts r = tl::lax::batch_norm_grad(a[0], a[1], a[2], a[3], a[4], 1e-3, 1);
              return r[0] * tl::reshape(r[1] + r[2], {1, 3, 1});
            });
  add_plain(out, "lax/select_and_scatter",
            {gradcheck::uniform({2, 5}, -1, 1, 9106), gradcheck::uniform({2, 2}, -1, 1, 9107)},
            [](std::span<const Tensor> a) {
              return tl::lax::select_and_scatter(
                  a[0], a[1], tl::scalar_tensor(0.0, a[0].dtype()), {1, 3}, {1, 2}, {0, 0}, {0, 0},
                  [](std::span<const Tensor> s) { return Ts{s[0] >= s[1]}; },
                  [](std::span<const Tensor> s) { return Ts{s[0] + s[1]}; });
            });
  // A body that is no single op takes reduce_window's and scatter's per-cell paths.
  add_plain(out, "lax/reduce_window_general", {x}, [](std::span<const Tensor> a) {
    return tl::lax::reduce_window({a[0]}, {tl::scalar_tensor(0.25, a[0].dtype())}, {1, 2, 2}, {1, 1, 2},
                                  {1, 2, 1}, {1, 1, 2}, {0, 1, 0}, {0, 0, 1},
                                  [](std::span<const Tensor> s) { return Ts{s[0] * 0.5 + s[1] * s[1]}; })[0];
  });
  add_plain(
      out, "lax/scatter_general",
      {x, tl::tensor(std::vector<std::int32_t>{2, 0, 2}, {3, 1}), gradcheck::uniform({3, 2, 3}, -1, 1, 9108)},
      [](std::span<const Tensor> a) {
        return tl::lax::scatter(
            {a[0]}, a[1], {a[2]},
            tl::lax::ScatterDimensionNumbers{.update_window_dims = {1, 2},
                                             .inserted_window_dims = {2},
                                             .scatter_dims_to_operand_dims = {2},
                                             .index_vector_dim = 1},
            [](std::span<const Tensor> s) { return Ts{tl::maximum(s[0], s[1]) - s[1] * 0.125}; })[0];
      });
  // The general convolution's direct loop (one spatial axis, a reversed window, two
  // batch groups) in forward mode; its reverse mode covers conv2d's cases only.
  const std::vector<Tensor> conv_in = {gradcheck::uniform({4, 7, 2}, -1, 1, 9109),
                                       gradcheck::uniform({3, 2, 4}, -1, 1, 9110)};
  const tl::ir::Function conv = traced("lax/convolution_1d", conv_in, [](std::span<const Tensor> a) {
    const tl::lax::ConvDimensionNumbers nwc{.input_batch_dimension = 0,
                                            .input_feature_dimension = 2,
                                            .input_spatial_dimensions = {1},
                                            .kernel_input_feature_dimension = 1,
                                            .kernel_output_feature_dimension = 2,
                                            .kernel_spatial_dimensions = {0},
                                            .output_batch_dimension = 0,
                                            .output_feature_dimension = 2,
                                            .output_spatial_dimensions = {1}};
    return tl::lax::convolution(a[0], a[1], nwc, {2}, {1}, {2}, {1}, {2}, {1}, 1, 2, tl::DType::f64);
  });
  out.push_back({"lax/convolution_1d:jvp", tl::ad::jvp_program(conv, {true, true}),
                 with(conv_in, directions(types_of(conv_in), 9111))});
}

void add_dynamic_shapes(std::vector<Program>& out) {
  const Tensor x = gradcheck::uniform({2, 3}, -1, 1, 9201);
  const auto i64 = [](I64s v) {
    const std::int64_t n = std::int64_t(v.size());
    return tl::tensor(v, {n});
  };
  add_plain(
      out, "lax/dynamic_shapes", {x, i64({3, 2}), i64({1, 0}), i64({0, 2}), i64({1, 1})},
      [](std::span<const Tensor> a) {
        namespace lax = tl::lax;
        const Tensor r = lax::dynamic_reshape(a[0], a[1], {3, 2});
        const Tensor p = lax::dynamic_pad(r, tl::scalar_tensor(0.5, r.dtype()), a[2], a[3], a[4], {6, 5});
        const Tensor io = lax::dynamic_iota(a[1], 1, r.dtype(), {3, 2});
        const Tensor b = lax::dynamic_broadcast_in_dim(
            a[0], tl::tensor(std::vector<std::int64_t>{2, 2, 3}, {3}), {1, 2}, {2, 2, 3});
        const Tensor g = lax::dynamic_gather(
            p, tl::tensor(std::vector<std::int32_t>{1, 0, 3, 2}, {2, 2}),
            tl::tensor(std::vector<std::int64_t>{2, 2}, {2}),
            {.offset_dims = {1, 2}, .start_index_map = {0, 1}, .index_vector_dim = 1}, false, {2, 2, 2});
        const Tensor c =
            lax::dynamic_conv(tl::reshape(p, {1, 1, 6, 5}), tl::reshape(tl::slice(r, 0, 0, 2), {1, 1, 2, 2}),
                              tl::tensor(std::vector<std::int64_t>{1, 0, 0, 1}, {2, 2}), {}, {1, 2}, {1, 1},
                              {2, 1}, {0, 0}, 1, 1, r.dtype(), {1, 1, 5, 3});
        return tl::sum(r + io) + tl::sum(b) + tl::sum(g) + tl::sum(c);
      });
}

}  // namespace

std::vector<Program> programs() {
  std::vector<Program> out;
  std::uint64_t seed = 5000;
  for (const gradcheck::Case& c : gradcheck::table()) {
    add_vjp_jvp(out, c.name, c.inputs, c.fn, seed);
    if (c.f32) {
      const std::vector<Tensor> in = as_f32(c.inputs);
      const tl::ir::Function f = traced(c.name, in, c.fn);
      out.push_back({c.name + ":vjp_f32", tl::ad::vjp_program(f, floating(in)), with(in, directions(f.result_types(), seed + 200))});
    }
    seed += 1000;
  }
  add_extras(out);
  add_bits_and_random(out);
  add_windows_and_norms(out);
  add_dynamic_shapes(out);
  return out;
}

}  // namespace cppgen_table
