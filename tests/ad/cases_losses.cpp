// Rows for tl::nn's losses: every loss under every reduction, label smoothing, the
// [N, C, d] layout and one-sample inputs. The torch expressions are
// torch.nn.functional's own losses, so the oracle lane checks that the definitions
// (not only the derivatives) match PyTorch's.
#include <tlaloc/nn/losses.hpp>

#include "ad/gradcheck.hpp"

namespace gradcheck {
namespace {

namespace nn = tl::nn;
using Fn = std::function<Tensor(std::span<const Tensor>)>;
using nn::Reduction;

Case row(std::string name, std::vector<std::string> ops, std::vector<Tensor> xs, Fn fn, std::string torch) {
  Case c{"loss/" + std::move(name), std::move(ops), std::move(xs), std::move(fn)};
  c.torch = std::move(torch);
  return c;
}

Tensor labels(std::vector<std::int64_t> v, const tl::Shape& shape) { return tl::tensor(v, shape); }

struct Mode {
  Reduction reduction;
  const char* name;   // row-name suffix
  const char* torch;  // the keyword argument in the torch expression
};
const Mode kModes[] = {{Reduction::mean, "mean", ""},
                       {Reduction::sum, "sum", ", reduction='sum'"},
                       {Reduction::none, "none", ", reduction='none'"}};

// pred and target with pred - target = these offsets: at least 0.2 from Huber's
// kink at |d| = delta for both deltas used (1 and 0.5), so finite differences never
// straddle it; both branches are taken for each.
std::vector<Tensor> huber_inputs(std::uint64_t seed) {
  const Tensor pred = uniform({2, 3}, -1, 1, seed);
  const Tensor offsets = tl::tensor(std::vector<double>{0.2, -0.3, 0.7, -1.5, 2.0, -0.8}, {2, 3});
  return {pred, pred - offsets};
}

const std::vector<std::string> ce_ops{"reduce_max", "stop_gradient", "sub",    "exp",
                                      "reduce_sum", "log",           "gather", "neg"};

std::vector<Case> rows() {
  std::vector<Case> out;
  std::uint64_t seed = 900;
  for (const Mode& m : kModes) {
    const Reduction r = m.reduction;
    const std::string suffix = std::string("_") + m.name;
    seed += 10;
    out.push_back(row(
        "mse" + suffix, {"sub", "square", "reduce_sum"},
        {uniform({3, 4}, -1, 1, seed), uniform({3, 4}, -1, 1, seed + 1)},
        [r](std::span<const Tensor> a) { return nn::mse_loss(a[0], a[1], r); },
        std::string("F.mse_loss(a, b") + m.torch + ")"));
    out.push_back(row(
        "cross_entropy" + suffix, ce_ops, {uniform({4, 5}, -2, 2, seed + 2), labels({4, 1, 0, 3}, {4})},
        [r](std::span<const Tensor> a) { return nn::cross_entropy(a[0], a[1], r); },
        std::string("F.cross_entropy(a, b") + m.torch + ")"));
    out.push_back(row(
        "cross_entropy_smoothing" + suffix, ce_ops,
        {uniform({4, 5}, -2, 2, seed + 3), labels({2, 2, 0, 4}, {4})},
        [r](std::span<const Tensor> a) { return nn::cross_entropy(a[0], a[1], 0.1, r); },
        std::string("F.cross_entropy(a, b, label_smoothing=0.1") + m.torch + ")"));
    // Classes on axis 1 of [N, C, d], as an image segmentation or a sequence model's.
    out.push_back(row(
        "cross_entropy_spatial" + suffix, ce_ops,
        {uniform({2, 3, 4}, -2, 2, seed + 4), labels({0, 2, 1, 1, 2, 0, 0, 1}, {2, 4})},
        [r](std::span<const Tensor> a) { return nn::cross_entropy(a[0], a[1], 0.2, r); },
        std::string("F.cross_entropy(a, b, label_smoothing=0.2") + m.torch + ")"));
    out.push_back(row(
        "nll" + suffix, {"gather", "neg"}, {uniform({4, 5}, -3, 0, seed + 5), labels({3, 0, 4, 1}, {4})},
        [r](std::span<const Tensor> a) { return nn::nll_loss(a[0], a[1], r); },
        std::string("F.nll_loss(a, b") + m.torch + ")"));
    out.push_back(row(
        "bce_with_logits" + suffix, {"maximum", "mul", "sub", "abs", "neg", "exp", "log1p"},
        {away_from_zero({3, 4}, seed + 6), uniform({3, 4}, 0, 1, seed + 7)},
        [r](std::span<const Tensor> a) { return nn::binary_cross_entropy_with_logits(a[0], a[1], r); },
        std::string("F.binary_cross_entropy_with_logits(a, b") + m.torch + ")"));
    out.push_back(row(
        "huber" + suffix, {"sub", "abs", "compare", "square", "mul", "select"}, huber_inputs(seed + 8),
        [r](std::span<const Tensor> a) { return nn::huber_loss(a[0], a[1], 1.0, r); },
        std::string("F.huber_loss(a, b") + m.torch + ")"));
    out.push_back(row(
        "huber_delta" + suffix, {"sub", "abs", "compare", "square", "mul", "select"}, huber_inputs(seed + 9),
        [r](std::span<const Tensor> a) { return nn::huber_loss(a[0], a[1], 0.5, r); },
        std::string("F.huber_loss(a, b, delta=0.5") + m.torch + ")"));
  }
  // One sample: logits [C] and a rank-0 label.
  out.push_back(row(
      "cross_entropy_one_sample", ce_ops, {uniform({5}, -2, 2, 950), tl::scalar_tensor(3, tl::DType::i64)},
      [](std::span<const Tensor> a) { return nn::cross_entropy(a[0], a[1]); }, "F.cross_entropy(a, b)"));
  return out;
}

const bool added = add(rows());

}  // namespace
}  // namespace gradcheck
