#include "cppgen/programs.hpp"

#include <functional>

#include "ad/engine.hpp"
#include "ad/gradcheck.hpp"
#include "ad/programs.hpp"
#include "ir/passes.hpp"
#include "support/training_runs.hpp"

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
  return out;
}

}  // namespace cppgen_table
