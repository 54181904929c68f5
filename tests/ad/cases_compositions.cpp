// Rows for whole programs rather than single ops: the losses, normalizations,
// attention blocks, integrators and branches that users differentiate. Every op a
// row uses has its own row elsewhere; these check that the rules compose (shapes
// broadcast back, stopped shifts stay stopped, loops and branches carry tangents)
// and, second order, that the rules' own ops are differentiable in context.
#include <cmath>
#include <limits>

#include "ad/gradcheck.hpp"

namespace gradcheck {
namespace {

using Fn = std::function<Tensor(std::span<const Tensor>)>;

Case row(std::string name, std::vector<std::string> ops, std::vector<Tensor> xs, Fn fn, std::string torch,
         bool second = true) {
  Case c{"composition/" + std::move(name), std::move(ops), std::move(xs), std::move(fn), second};
  c.torch = std::move(torch);
  return c;
}

Tensor labels(std::vector<std::int64_t> v) { return tl::tensor(v); }

// ---- classification losses -------------------------------------------------------

// Mean softmax cross-entropy of logits [n, classes] against integer labels [n].
Tensor cross_entropy(const Tensor& logits, const Tensor& y, double smoothing = 0.0) {
  const std::int64_t classes = logits.shape().back();
  Tensor target = tl::one_hot(y, classes, logits.dtype());
  if (smoothing != 0.0) target = target * (1.0 - smoothing) + smoothing / double(classes);
  return tl::mean(-tl::sum(target * tl::log_softmax(logits, -1), -1));
}

using Activation = Tensor (*)(const Tensor&);
Tensor gelu_exact(const Tensor& x) { return tl::gelu(x); }

// A two-layer MLP's loss; inputs x, W1, b1, W2, b2, labels.
Fn mlp_loss(Activation act) {
  return [act](std::span<const Tensor> a) {
    const Tensor hidden = act(tl::matmul(a[0], a[1]) + a[2]);
    return cross_entropy(tl::matmul(hidden, a[3]) + a[4], a[5]);
  };
}

std::vector<Tensor> mlp_inputs(std::uint64_t seed) {
  return {uniform({4, 6}, -1, 1, seed),     uniform({6, 5}, -1, 1, seed + 1), uniform({5}, -0.5, 0.5, seed + 2),
          uniform({5, 3}, -1, 1, seed + 3), uniform({3}, -0.5, 0.5, seed + 4), labels({2, 0, 1, 2})};
}

// The relu MLP: b1 chosen for this seed's x W1 so that every hidden pre-activation
// x W1 + b1 is at least 0.18 from relu's kink at 0 (finite differences move them by
// ~1e-4), with both signs in every unit.
std::vector<Tensor> relu_mlp_inputs() {
  std::vector<Tensor> in = mlp_inputs(720);
  in[2] = tl::tensor(std::vector<double>{0.1, 0.0, 0.2, 0.1, 0.0});
  return in;
}

const std::vector<std::string> mlp_ops{"dot_general", "add", "reduce_max", "stop_gradient", "exp", "log",
                                       "reduce_sum", "mul", "neg", "div"};
const std::string mlp_torch_tail = " @ d + e, f)";

// ---- normalization -----------------------------------------------------------------

// Over the last axis, written out: mean, the biased variance, rsqrt.
Tensor layer_norm(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  const Tensor centered = x - tl::mean(x, -1, true);
  const Tensor variance = tl::mean(tl::square(centered), -1, true);
  return centered * tl::rsqrt(variance + 1e-5) * weight + bias;
}

Tensor rms_norm(const Tensor& x, const Tensor& weight) {
  return x * tl::rsqrt(tl::mean(tl::square(x), -1, true) + 1e-6) * weight;
}

// ---- attention -----------------------------------------------------------------------

// The last two axes of x swapped.
Tensor swap_last(const Tensor& x) {
  std::vector<std::int64_t> perm(std::size_t(x.rank()));
  for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = std::int64_t(i);
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  return tl::transpose(x, perm);
}

// softmax(q k^T / sqrt(d)) v over [..., seq, dim]; causal: a query sees keys at or
// before its own position (the others get -inf before the softmax, so exactly 0 after).
Tensor attention(const Tensor& q, const Tensor& k, const Tensor& v, bool causal) {
  const std::int64_t seq = q.shape()[q.shape().size() - 2], d = q.shape().back();
  Tensor scores = tl::matmul(q, swap_last(k)) / std::sqrt(double(d));
  if (causal) {
    const Tensor allowed = tl::iota({seq, seq}, 0) >= tl::iota({seq, seq}, 1);
    scores = tl::where(allowed, scores, -std::numeric_limits<double>::infinity());
  }
  return tl::matmul(tl::softmax(scores, -1), v);
}

// Two heads over [batch, seq, 2 * head_dim]: split, attend per head, merge.
Tensor two_head_attention(const Tensor& q, const Tensor& k, const Tensor& v) {
  const std::int64_t b = q.shape()[0], s = q.shape()[1], d = q.shape()[2];
  const auto heads = [&](const Tensor& x) { return tl::transpose(tl::reshape(x, {b, s, 2, d / 2}), {0, 2, 1, 3}); };
  const Tensor out = attention(heads(q), heads(k), heads(v), false);
  return tl::reshape(tl::transpose(out, {0, 2, 1, 3}), {b, s, d});
}

const std::vector<std::string> attention_ops{"dot_general", "transpose", "div", "reduce_max", "stop_gradient",
                                             "sub", "exp", "reduce_sum"};
const std::string torch_attention = "torch.softmax(a @ b.transpose(-1, -2) / 2.0, dim=-1) @ c";

// ---- a projectile with quadratic drag --------------------------------------------------

// One semi-implicit Euler step of {position, velocity}: v += dt (g - k |v| v), p += dt v.
std::vector<Tensor> projectile_step(const std::vector<Tensor>& s, const Tensor& drag) {
  const double dt = 0.05;
  const Tensor& v = s[1];
  const Tensor gravity = tl::tensor(std::vector<double>{0.0, -9.81}).astype(v.dtype());
  const Tensor speed = tl::sqrt(tl::sum(tl::square(v)));
  const Tensor v_next = v + dt * (gravity - drag * speed * v);
  return {s[0] + dt * v_next, v_next};
}

constexpr int projectile_steps = 40;

// Inputs: the initial velocity [2] and the drag coefficient (a scalar); the final position.
Tensor projectile_unrolled(std::span<const Tensor> a) {
  std::vector<Tensor> s{tl::zeros_like(a[0]), a[0]};
  for (int i = 0; i < projectile_steps; ++i) s = projectile_step(s, a[1]);
  return s[0];
}

Tensor projectile_fori(std::span<const Tensor> a) {
  const Tensor& drag = a[1];
  const std::vector<Tensor> s = tl::fori_loop(
      0, projectile_steps, [&drag](const Tensor&, const std::vector<Tensor>& c) { return projectile_step(c, drag); },
      std::vector<Tensor>{tl::zeros_like(a[0]), a[0]});
  return s[0];
}

// The same loop in Python: a recursive lambda (the step's velocity is used twice).
const std::string torch_projectile =
    "(lambda run: run(run, torch.zeros(2, dtype=a.dtype), a, 40))("
    "lambda run, p, v, n: p if n == 0 else (lambda w: run(run, p + 0.05 * w, w, n - 1))("
    "v + 0.05 * (torch.tensor([0.0, -9.81], dtype=a.dtype) - b * torch.sqrt((v * v).sum()) * v)))";

const std::vector<std::string> projectile_ops{"mul", "add", "sub", "sqrt", "reduce_sum"};

// ---- a data-dependent branch -----------------------------------------------------------

// tanh(x) w where sum(x) > 0, exp(x) - w^2 elsewhere; both branches read both inputs.
Tensor branch(std::span<const Tensor> a) {
  const Tensor &x = a[0], &w = a[1];
  return tl::cond(
      tl::sum(x) > 0.0, [&] { return tl::tanh(x) * w; }, [&] { return tl::exp(x) - w * w; });
}
const std::string torch_branch = "torch.tanh(a) * b if a.sum() > 0 else torch.exp(a) - b * b";

// Inputs [2, 3] whose sum is well away from 0, positive or negative.
Tensor branch_input(double shift, std::uint64_t seed) { return uniform({2, 3}, -1, 1, seed) + shift; }

// ---- logsumexp losses --------------------------------------------------------------------

// logsumexp(x) - x[label], averaged: cross-entropy through logsumexp and a gather.
Tensor lse_loss(const Tensor& logits, const Tensor& y, bool naive) {
  const Tensor lse = naive ? tl::log(tl::sum(tl::exp(logits), -1)) : tl::logsumexp(logits, -1);
  const Tensor picked = tl::squeeze(tl::take_along_axis(logits, tl::expand_dims(y, -1), -1), -1);
  return tl::mean(lse - picked);
}
const std::string torch_minus_picked = " - a.gather(1, b[:, None])[:, 0]).mean()";

const bool added = add({
    row("mlp_tanh_cross_entropy", mlp_ops, mlp_inputs(700), mlp_loss(tl::tanh),
        "F.cross_entropy(torch.tanh(a @ b + c)" + mlp_torch_tail),
    // relu'' is zero away from the kink, so the second derivative comes from the softmax.
    row("mlp_relu_cross_entropy", mlp_ops, relu_mlp_inputs(), mlp_loss(tl::relu),
        "F.cross_entropy(torch.relu(a @ b + c)" + mlp_torch_tail),
    row("mlp_gelu_cross_entropy", mlp_ops, mlp_inputs(740), mlp_loss(gelu_exact),
        "F.cross_entropy(F.gelu(a @ b + c)" + mlp_torch_tail),
    row("cross_entropy_label_smoothing", {"reduce_max", "stop_gradient", "exp", "log", "reduce_sum", "mul", "add"},
        {uniform({4, 5}, -2, 2, 760), labels({4, 1, 0, 3})},
        [](std::span<const Tensor> a) { return cross_entropy(a[0], a[1], 0.1); },
        "F.cross_entropy(a, b, label_smoothing=0.1)"),
    row("layer_norm", {"reduce_sum", "sub", "square", "rsqrt", "mul", "add"},
        {uniform({3, 5}, -2, 2, 770), uniform({5}, 0.5, 1.5, 771), uniform({5}, -1, 1, 772)},
        [](std::span<const Tensor> a) { return layer_norm(a[0], a[1], a[2]); }, "F.layer_norm(a, (5,), b, c, eps=1e-5)"),
    row("rms_norm", {"square", "reduce_sum", "rsqrt", "mul"}, {uniform({3, 5}, -2, 2, 780), uniform({5}, 0.5, 1.5, 781)},
        [](std::span<const Tensor> a) { return rms_norm(a[0], a[1]); },
        "a * torch.rsqrt(a.pow(2).mean(-1, keepdim=True) + 1e-6) * b"),
    row("swiglu_mlp", {"dot_general", "silu", "mul"},
        {uniform({3, 4}, -1, 1, 790), uniform({4, 5}, -1, 1, 791), uniform({4, 5}, -1, 1, 792),
         uniform({5, 4}, -1, 1, 793)},
        [](std::span<const Tensor> a) { return tl::matmul(tl::silu(tl::matmul(a[0], a[1])) * tl::matmul(a[0], a[2]), a[3]); },
        "(F.silu(a @ b) * (a @ c)) @ d"),
    row("attention", attention_ops,
        {uniform({2, 3, 4}, -1, 1, 800), uniform({2, 3, 4}, -1, 1, 801), uniform({2, 3, 4}, -1, 1, 802)},
        [](std::span<const Tensor> a) { return attention(a[0], a[1], a[2], false); }, torch_attention),
    row("attention_causal", [] { auto o = attention_ops; o.insert(o.end(), {"iota", "compare", "select"}); return o; }(),
        {uniform({2, 3, 4}, -1, 1, 810), uniform({2, 3, 4}, -1, 1, 811), uniform({2, 3, 4}, -1, 1, 812)},
        [](std::span<const Tensor> a) { return attention(a[0], a[1], a[2], true); },
        "torch.softmax((a @ b.transpose(-1, -2) / 2.0).masked_fill(~torch.ones(3, 3, dtype=torch.bool).tril(),"
        " float('-inf')), dim=-1) @ c"),
    row("attention_two_heads", [] { auto o = attention_ops; o.push_back("reshape"); return o; }(),
        {uniform({2, 3, 4}, -1, 1, 820), uniform({2, 3, 4}, -1, 1, 821), uniform({2, 3, 4}, -1, 1, 822)},
        [](std::span<const Tensor> a) { return two_head_attention(a[0], a[1], a[2]); },
        "(lambda heads: (torch.softmax(heads(a) @ heads(b).transpose(-1, -2) / 2 ** 0.5, dim=-1) @ heads(c))"
        ".transpose(1, 2).reshape(2, 3, 4))(lambda t: t.reshape(2, 3, 2, 2).transpose(1, 2))"),
    row("projectile_unrolled", projectile_ops,
        {tl::tensor(std::vector<double>{6.0, 8.0}), tl::scalar_tensor(0.05, tl::DType::f64)}, projectile_unrolled,
        torch_projectile),
    row("projectile_fori_loop", [] { auto o = projectile_ops; o.push_back("scan"); return o; }(),
        {tl::tensor(std::vector<double>{6.0, 8.0}), tl::scalar_tensor(0.05, tl::DType::f64)}, projectile_fori, ""),
    row("cond_true_branch", {"if", "tanh", "mul"}, {branch_input(0.8, 830), uniform({2, 3}, -1, 1, 831)}, branch,
        torch_branch),
    row("cond_false_branch", {"if", "exp", "sub", "mul"}, {branch_input(-0.8, 832), uniform({2, 3}, -1, 1, 833)}, branch,
        torch_branch),
    row("logsumexp_loss", {"reduce_max", "stop_gradient", "exp", "log", "reduce_sum", "take_along_axis"},
        {uniform({4, 5}, -3, 3, 840), labels({3, 0, 4, 1})},
        [](std::span<const Tensor> a) { return lse_loss(a[0], a[1], false); }, "(torch.logsumexp(a, dim=-1)" + torch_minus_picked),
    row("log_sum_exp_naive_loss", {"exp", "log", "reduce_sum", "take_along_axis"},
        {uniform({4, 5}, -3, 3, 841), labels({3, 0, 4, 1})},
        [](std::span<const Tensor> a) { return lse_loss(a[0], a[1], true); },
        "(torch.log(torch.exp(a).sum(-1))" + torch_minus_picked),
});

}  // namespace
}  // namespace gradcheck
