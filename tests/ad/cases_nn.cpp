// Rows for the neural-network ops: conv2d (stride, padding, dilation, groups),
// conv_transpose2d built on it, StableHLO's convolution in another layout, max and average pooling, StableHLO's batch norms,
// and the composites softmax, log_softmax, a layer norm and a cross-entropy.
#include "ad/gradcheck.hpp"
#include "ir/op.hpp"

namespace gradcheck {
namespace {

using Fn = std::function<Tensor(std::span<const Tensor>)>;
using I64s = std::vector<std::int64_t>;

Case row(std::string name, std::vector<std::string> ops, std::vector<Tensor> xs, Fn fn, std::string torch,
         bool second = true) {
  Case c{"nn/" + std::move(name), std::move(ops), std::move(xs), std::move(fn), second};
  c.torch = std::move(torch);
  return c;
}

Case conv(std::string name, tl::Shape x, tl::Shape w, tl::Conv2dOptions opt, std::string torch, std::uint64_t seed) {
  return row("conv2d_" + std::move(name), {"conv2d"}, {uniform(x, -1, 1, seed), uniform(w, -1, 1, seed + 1)},
             [opt](std::span<const Tensor> a) { return tl::conv2d(a[0], a[1], opt); }, "F.conv2d(a, b, " + torch + ")");
}

Tensor layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta) {
  const Tensor m = tl::mean(x, -1, true), v = tl::var(x, -1, true);
  return (x - m) * tl::rsqrt(v + 1e-5) * gamma + beta;
}

Tensor call(std::string_view op, std::vector<Tensor> in, const tl::detail::Attrs& attrs) {
  return tl::detail::call(*tl::detail::find_op(op), std::span<const Tensor>(in), attrs)[0];
}

const tl::detail::Attrs nhwc_attrs{{"input_batch_dimension", std::int64_t(0)},
                                   {"input_feature_dimension", std::int64_t(3)},
                                   {"input_spatial_dimensions", I64s{1, 2}},
                                   {"kernel_output_feature_dimension", std::int64_t(3)},
                                   {"kernel_input_feature_dimension", std::int64_t(2)},
                                   {"kernel_spatial_dimensions", I64s{0, 1}},
                                   {"output_batch_dimension", std::int64_t(0)},
                                   {"output_feature_dimension", std::int64_t(3)},
                                   {"output_spatial_dimensions", I64s{1, 2}},
                                   {"window_strides", I64s{2, 1}},
                                   {"padding", I64s{1, 1, 0, 2}},
                                   {"rhs_dilation", I64s{1, 2}},
                                   {"feature_group_count", std::int64_t(2)},
                                   {"batch_group_count", std::int64_t(1)}};

// conv2d_backward's attributes: tl::Conv2dOptions field by field (stride 2, padding 1),
// and the operand whose share it is.
tl::detail::Attrs conv_share_attrs(std::int64_t operand) {
  return {{"stride", I64s{2, 2}},
          {"padding", I64s{1, 1}},
          {"dilation", I64s{1, 1}},
          {"groups", std::int64_t(1)},
          {"operand", operand}};
}

// tl::ConvTranspose2dOptions field by field (stride 2, padding 1, output padding 1),
// and for a share the operand whose share it is.
tl::detail::Attrs transpose_attrs(std::int64_t groups) {
  return {{"stride", I64s{2, 2}},         {"padding", I64s{1, 1}}, {"output_padding", I64s{1, 1}},
          {"dilation", I64s{1, 1}},       {"groups", groups}};
}
tl::detail::Attrs transpose_share_attrs(std::int64_t operand) {
  tl::detail::Attrs a = transpose_attrs(1);
  a.set("operand", operand);
  return a;
}

// tl::Pool2dOptions field by field.
tl::detail::Attrs pool_attrs(I64s kernel, I64s stride, I64s padding) {
  return {{"kernel", std::move(kernel)}, {"stride", std::move(stride)}, {"padding", std::move(padding)}};
}

const tl::detail::Attrs bn_attrs{{"epsilon", 1e-3}, {"feature_index", std::int64_t(1)}};

const bool added = add({
    conv("plain", {1, 2, 4, 4}, {3, 2, 2, 2}, {}, "", 500),
    conv("stride2_pad1", {2, 1, 5, 5}, {2, 1, 3, 3}, {{2, 2}, {1, 1}, {1, 1}, 1}, "stride=2, padding=1", 502),
    // The windows leave input rows unread (stride 2 over 6 rows with a dilated kernel).
    conv("dilation_stride", {1, 2, 6, 5}, {2, 2, 2, 2}, {{2, 1}, {0, 1}, {2, 1}, 1},
         "stride=(2, 1), padding=(0, 1), dilation=(2, 1)", 504),
    conv("groups2", {1, 4, 4, 4}, {4, 2, 2, 2}, {{1, 1}, {1, 1}, {1, 1}, 2}, "padding=1, groups=2", 506),
    conv("groups2_stride2_dilation2", {1, 4, 6, 6}, {2, 2, 2, 2}, {{2, 2}, {1, 1}, {2, 2}, 2},
         "stride=2, padding=1, dilation=2, groups=2", 508),
    // The conv2d op with lhs dilation, as conv_transpose2d and conv2d's own input rule make it.
    row("conv2d_lhs_dilation", {"conv2d"}, {uniform({1, 2, 3, 3}, -1, 1, 510), uniform({2, 1, 3, 3}, -1, 1, 511)},
        [](std::span<const Tensor> a) {
          return call("conv2d", {a[0], a[1]},
                      {{"window_strides", I64s{1, 2}}, {"padding_low", I64s{1, 0}}, {"padding_high", I64s{2, 1}},
                       {"lhs_dilation", I64s{2, 2}}, {"rhs_dilation", I64s{1, 1}}, {"feature_group_count", std::int64_t(2)}});
        },
        ""),
    // The op tl::derivatives::conv2d_backward records on values of unknown type, with
    // stride 2 and padding 1: x's share (a transposed convolution of g), then w's.
    row("conv2d_backward_input", {"conv2d_backward"},
        {uniform({1, 3, 3, 3}, -1, 1, 995), uniform({3, 2, 3, 3}, -1, 1, 996)},
        [](std::span<const Tensor> a) {
          const Tensor x = tl::zeros({1, 2, 5, 5}, tl::DType::f64);
          return call("conv2d_backward", {a[0], x, a[1]}, conv_share_attrs(0));
        },
        "F.conv_transpose2d(a, b, stride=2, padding=1)"),
    row("conv2d_backward_weight", {"conv2d_backward"},
        {uniform({1, 3, 3, 3}, -1, 1, 997), uniform({1, 2, 5, 5}, -1, 1, 998)},
        [](std::span<const Tensor> a) {
          const Tensor w = tl::zeros({3, 2, 3, 3}, tl::DType::f64);
          return call("conv2d_backward", {a[0], a[1], w}, conv_share_attrs(1));
        },
        "torch.nn.grad.conv2d_weight(b, (3, 2, 3, 3), a, stride=2, padding=1)"),
    // The ops tl::conv_transpose2d and tl::derivatives::conv_transpose2d_backward
    // record on values of unknown type: stride 2, padding 1, output padding 1.
    row("conv_transpose2d_op", {"conv_transpose2d"},
        {uniform({1, 2, 3, 3}, -1, 1, 999), uniform({2, 2, 3, 3}, -1, 1, 1000)},
        [](std::span<const Tensor> a) { return call("conv_transpose2d", {a[0], a[1]}, transpose_attrs(2)); },
        "F.conv_transpose2d(a, b, stride=2, padding=1, output_padding=1, groups=2)"),
    row("conv_transpose2d_backward_input", {"conv_transpose2d_backward"},
        {uniform({1, 1, 6, 6}, -1, 1, 1001), uniform({2, 1, 3, 3}, -1, 1, 1002)},
        [](std::span<const Tensor> a) {
          const Tensor x = tl::zeros({1, 2, 3, 3}, tl::DType::f64);
          return call("conv_transpose2d_backward", {a[0], x, a[1]}, transpose_share_attrs(0));
        },
        "F.conv2d(a, b, stride=2, padding=1)"),
    row("conv_transpose2d_backward_weight", {"conv_transpose2d_backward"},
        {uniform({1, 1, 6, 6}, -1, 1, 1003), uniform({1, 2, 3, 3}, -1, 1, 1004)},
        [](std::span<const Tensor> a) {
          const Tensor w = tl::zeros({2, 1, 3, 3}, tl::DType::f64);
          return call("conv_transpose2d_backward", {a[0], a[1], w}, transpose_share_attrs(1));
        },
        "torch.nn.grad.conv2d_weight(a, (2, 1, 3, 3), b, stride=2, padding=1)"),
    // StableHLO's convolution in NHWC / HWIO layout, asymmetric padding, two groups.
    row("convolution_nhwc", {"convolution"}, {uniform({1, 5, 5, 4}, -1, 1, 534), uniform({3, 3, 2, 4}, -1, 1, 535)},
        [](std::span<const Tensor> a) { return call("convolution", {a[0], a[1]}, nhwc_attrs); },
        "F.conv2d(F.pad(a.permute(0, 3, 1, 2), (0, 2, 1, 1)), b.permute(3, 2, 0, 1), stride=(2, 1), dilation=(1, 2),"
        " groups=2).permute(0, 2, 3, 1)"),
    row("max_pool2d", {"pool"}, {uniform({1, 2, 4, 4}, -2, 2, 512)},
        [](std::span<const Tensor> a) { return tl::max_pool2d(a[0], {{2, 2}}); }, "F.max_pool2d(a, 2)"),
    // Overlapping windows with padding: an element may be the maximum of several.
    row("max_pool2d_overlap_pad", {"pool"}, {uniform({2, 1, 5, 5}, -2, 2, 513)},
        [](std::span<const Tensor> a) { return tl::max_pool2d(a[0], {{3, 3}, {2, 2}, {1, 1}}); },
        "F.max_pool2d(a, 3, 2, 1)"),
    row("max_pool2d_uneven", {"pool"}, {uniform({1, 2, 5, 4}, -2, 2, 514)},
        [](std::span<const Tensor> a) { return tl::max_pool2d(a[0], {{2, 3}, {2, 1}, {0, 1}}); },
        "F.max_pool2d(a, (2, 3), (2, 1), (0, 1))"),
    // Max pooling's input cotangent as an op: linear in g, piecewise constant in x
    // (overlapping windows with padding, so an element can collect several windows).
    row("max_pool_grad", {"max_pool_grad"}, {uniform({2, 1, 5, 5}, -2, 2, 536), uniform({2, 1, 3, 3}, -1, 1, 537)},
        [](std::span<const Tensor> a) {
          const tl::detail::Attrs attrs{{"window_dimensions", I64s{1, 1, 3, 3}}, {"window_strides", I64s{1, 1, 2, 2}},
                                        {"padding_low", I64s{0, 0, 1, 1}},      {"padding_high", I64s{0, 0, 1, 1}},
                                        {"reduction", std::string("max")}};
          return call("max_pool_grad", {a[0], call("pool", {a[0]}, attrs), a[1]}, attrs);
        },
        ""),
    // The ops tl::max_pool2d and tl::avg_pool2d, and their derivative functions, record
    // on values of unknown type: windows 2 x 2 that do not overlap (x has no ties).
    row("max_pool2d_op", {"max_pool2d"}, {uniform({2, 1, 5, 5}, -2, 2, 1005)},
        [](std::span<const Tensor> a) { return call("max_pool2d", {a[0]}, pool_attrs({3, 3}, {2, 2}, {1, 1})); },
        "F.max_pool2d(a, 3, 2, 1)"),
    row("max_pool2d_backward", {"max_pool2d_backward"},
        {uniform({1, 2, 2, 2}, -1, 1, 1006), uniform({1, 2, 4, 4}, -2, 2, 1007)},
        [](std::span<const Tensor> a) {
          const Tensor y = tl::max_pool2d(a[1], {{2, 2}});
          return tl::sin(call("max_pool2d_backward", {a[0], a[1], y}, pool_attrs({2, 2}, {0, 0}, {0, 0})));
        },
        "torch.sin(F.max_unpool2d(a, F.max_pool2d(b, 2, return_indices=True)[1], 2)) + 0 * b"),
    row("max_pool2d_jvp", {"max_pool2d_jvp"}, {uniform({1, 2, 4, 4}, -1, 1, 1008), uniform({1, 2, 4, 4}, -2, 2, 1009)},
        [](std::span<const Tensor> a) {
          const Tensor y = tl::max_pool2d(a[1], {{2, 2}});
          return tl::sin(call("max_pool2d_jvp", {a[0], a[1], y}, pool_attrs({2, 2}, {0, 0}, {0, 0})));
        },
        "torch.sin(a.flatten(2).gather(2, F.max_pool2d(b, 2, return_indices=True)[1].flatten(2)).reshape(1, 2, 2, 2))"
        " + 0 * F.max_pool2d(b, 2)"),
    row("avg_pool2d_op", {"avg_pool2d"}, {uniform({2, 1, 5, 5}, -2, 2, 1010)},
        [](std::span<const Tensor> a) { return call("avg_pool2d", {a[0]}, pool_attrs({3, 3}, {2, 2}, {1, 1})); },
        "F.avg_pool2d(a, 3, 2, 1)"),
    row("avg_pool2d_backward", {"avg_pool2d_backward"},
        {uniform({1, 2, 2, 2}, -1, 1, 1011), uniform({1, 2, 4, 4}, -1, 1, 1012)},
        [](std::span<const Tensor> a) {
          return tl::sin(call("avg_pool2d_backward", {a[0], a[1]}, pool_attrs({2, 2}, {0, 0}, {0, 0})));
        },
        "torch.sin(a.repeat_interleave(2, 2).repeat_interleave(2, 3) / 4) + 0 * b"),
    row("avg_pool2d_jvp", {"avg_pool2d_jvp"}, {uniform({2, 1, 5, 5}, -2, 2, 1013)},
        [](std::span<const Tensor> a) { return call("avg_pool2d_jvp", {a[0]}, pool_attrs({3, 3}, {2, 2}, {1, 1})); },
        "F.avg_pool2d(a, 3, 2, 1)"),
    row("avg_pool2d", {"pool"}, {uniform({2, 1, 5, 5}, -2, 2, 515)},
        [](std::span<const Tensor> a) { return tl::avg_pool2d(a[0], {{3, 3}, {2, 2}, {1, 1}}); },
        "F.avg_pool2d(a, 3, 2, 1)"),
    row("avg_pool2d_uneven", {"pool"}, {uniform({1, 2, 5, 4}, -2, 2, 516)},
        [](std::span<const Tensor> a) { return tl::avg_pool2d(a[0], {{2, 3}, {2, 1}, {0, 1}}); },
        "F.avg_pool2d(a, (2, 3), (2, 1), (0, 1))"),
    // All three results: the statistics' cotangents reach x too.
    row("batch_norm_training", {"batch_norm_training"},
        {uniform({3, 2, 2, 2}, -2, 2, 517), uniform({2}, 0.5, 1.5, 518), uniform({2}, -1, 1, 519)},
        [](std::span<const Tensor> a) {
          const std::vector<Tensor> out = tl::detail::call(*tl::detail::find_op("batch_norm_training"), a, bn_attrs);
          return out[0] + tl::reshape(tl::square(out[1]) + out[2] * 3.0, {1, 2, 1, 1});
        },
        "F.batch_norm(a, None, None, b, c, training=True, eps=1e-3)"
        " + (a.mean(dim=(0, 2, 3)) ** 2 + a.var(dim=(0, 2, 3), unbiased=False) * 3).reshape(1, 2, 1, 1)"),
    row("batch_norm_inference", {"batch_norm_inference"},
        {uniform({2, 3, 2}, -2, 2, 520), uniform({3}, 0.5, 1.5, 521), uniform({3}, -1, 1, 522),
         uniform({3}, -1, 1, 523), uniform({3}, 0.5, 1.5, 524)},
        [](std::span<const Tensor> a) { return call("batch_norm_inference", {a[0], a[1], a[2], a[3], a[4]}, bn_attrs); },
        "(a - d.reshape(1, 3, 1)) / torch.sqrt(e.reshape(1, 3, 1) + 1e-3) * b.reshape(1, 3, 1) + c.reshape(1, 3, 1)"),
    row("softmax", {"exp", "reduce_sum", "div"}, {uniform({2, 5}, -3, 3, 525)},
        [](std::span<const Tensor> a) { return tl::softmax(a[0], -1); }, "torch.softmax(a, dim=-1)"),
    row("softmax_axis0", {"exp", "reduce_sum", "div"}, {uniform({3, 4}, -3, 3, 526)},
        [](std::span<const Tensor> a) { return tl::softmax(a[0], 0); }, "torch.softmax(a, dim=0)"),
    row("log_softmax", {"exp", "log", "reduce_sum"}, {uniform({2, 5}, -3, 3, 527)},
        [](std::span<const Tensor> a) { return tl::log_softmax(a[0], 1); }, "torch.log_softmax(a, dim=1)"),
    row("layer_norm", {"reduce_sum", "rsqrt"}, {uniform({3, 4}, -2, 2, 528), uniform({4}, 0.5, 1.5, 529), uniform({4}, -1, 1, 530)},
        [](std::span<const Tensor> a) { return layer_norm(a[0], a[1], a[2]); }, "F.layer_norm(a, (4,), b, c, eps=1e-5)"),
    // Integer labels through one_hot: no derivative of their own, none asked for.
    row("cross_entropy_one_hot", {"exp", "log", "reduce_sum"},
        {uniform({4, 5}, -3, 3, 531), tl::tensor(std::vector<std::int64_t>{1, 0, 4, 2})},
        [](std::span<const Tensor> a) {
          const Tensor target = tl::one_hot(a[1], 5, a[0].dtype());
          return -tl::sum(target * tl::log_softmax(a[0], -1)) / 4.0;
        },
        "F.cross_entropy(a, b)"),
});

// conv_transpose2d flips its kernel with reverse in the function itself.
const bool added_transpose =
    add({row("conv_transpose2d", {"conv2d", "reverse"}, {uniform({1, 2, 3, 3}, -1, 1, 532), uniform({2, 2, 3, 3}, -1, 1, 533)},
             [](std::span<const Tensor> a) { return tl::conv_transpose2d(a[0], a[1], {{2, 2}, {1, 1}, {1, 1}, {1, 1}, 2}); },
             "F.conv_transpose2d(a, b, stride=2, padding=1, output_padding=1, groups=2)")});

}  // namespace
}  // namespace gradcheck
