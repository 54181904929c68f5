// Rows for the StableHLO ops with regions whose rules depend on the region's body:
// reduce and reduce_window (add, maximum, minimum), sort and map. The ops are
// recorded with their regions by tests/ad/region_ops.hpp (no public function makes
// them). Inputs keep maxima clear of ties, and init values are inputs where their
// derivative is part of the rule. scatter's rows sit with gather's in cases_index.cpp.
#include <limits>

#include "ad/gradcheck.hpp"
#include "ad/region_ops.hpp"

namespace gradcheck {
namespace {

using Fn = std::function<Tensor(std::span<const Tensor>)>;
using region_ops::Attrs;
using region_ops::Ints;

Case row(std::string name, std::vector<std::string> ops, std::vector<Tensor> in, Fn fn, std::string torch = "") {
  Case c{"region/" + std::move(name), std::move(ops), std::move(in), std::move(fn)};
  c.torch = std::move(torch);
  return c;
}

Tensor scalar(double v) { return tl::scalar_tensor(v, tl::DType::f64); }
// A constant init in x's dtype.
Tensor init_like(const Tensor& x, double v) { return tl::scalar_tensor(v, x.dtype()); }

Tensor reduce(const Tensor& x, const Tensor& init, Ints dims, const char* body) {
  return region_ops::with_body("reduce", {x, init}, {{"dimensions", std::move(dims)}}, body);
}
Tensor reduce_window(const Tensor& x, const Tensor& init, const Attrs& window, const char* body) {
  return region_ops::with_body("reduce_window", {x, init}, window, body);
}
// 1, 2, ... along `axis`, in x's dtype: weights that make the order of a sort's
// results matter to the checked function.
Tensor ramp(const Tensor& x, std::int64_t axis) {
  return tl::iota(x.shape(), axis, tl::DType::i64).astype(x.dtype()) + 1.0;
}

const double inf = std::numeric_limits<double>::infinity();

const bool added = add({
    // ---- reduce ----
    row("reduce_add", {"reduce"}, {uniform({3, 4}, -2, 2, 600), scalar(0.3)},
        [](std::span<const Tensor> a) { return tl::square(reduce(a[0], a[1], {1}, "add")); },
        "torch.square(a.sum(1) + b)"),
    // Row 1's maximum (-0.4) is below init (-0.2), which then takes the derivative.
    row("reduce_max_init", {"reduce"},
        {tl::tensor({0.3, 1.2, -0.5, 0.9, -1.1, -0.4, -0.8, -1.5, 1.7, 0.2, 1.9, -0.3}, {3, 4}), scalar(-0.2)},
        [](std::span<const Tensor> a) { return tl::square(reduce(a[0], a[1], {1}, "maximum")); },
        "torch.square(torch.maximum(a.amax(1), b))"),
    row("reduce_min_all", {"reduce"}, {uniform({2, 3, 2}, -2, 2, 601)},
        [](std::span<const Tensor> a) { return reduce(a[0], init_like(a[0], inf), {0, 2}, "minimum"); },
        "a.amin((0, 2))"),

    // ---- reduce_window ----
    // avg_pool2d's sums, with init as an input (each result counts it once).
    row("reduce_window_add_pool", {"reduce_window"}, {uniform({1, 1, 4, 5}, -2, 2, 602), scalar(0.4)},
        [](std::span<const Tensor> a) {
          return tl::square(reduce_window(a[0], a[1], {{"window_dimensions", Ints{1, 1, 2, 2}}}, "add"));
        },
        "torch.square(F.avg_pool2d(a, 2, stride=1) * 4 + b)"),
    // Every geometry option: strides, base and window dilations, and padding that
    // crops (-1) as well as pads; padding and holes hold init, whose derivative
    // counts them.
    row("reduce_window_add_dilated", {"reduce_window"}, {uniform({4, 5}, -2, 2, 603), scalar(-0.7)},
        [](std::span<const Tensor> a) {
          const Attrs w{{"window_dimensions", Ints{2, 2}},
                        {"window_strides", Ints{2, 1}},
                        {"base_dilations", Ints{2, 1}},
                        {"window_dilations", Ints{1, 2}},
                        {"padding", Ints{1, -1, 0, 1}}};
          return tl::square(reduce_window(a[0], a[1], w, "add"));
        }),
    row("reduce_window_max_pool", {"reduce_window"}, {uniform({1, 1, 5, 5}, -2, 2, 604)},
        [](std::span<const Tensor> a) {
          const Attrs w{{"window_dimensions", Ints{1, 1, 3, 3}},
                        {"window_strides", Ints{1, 1, 2, 2}},
                        {"padding", Ints{0, 0, 0, 0, 1, 1, 1, 1}}};
          return tl::square(reduce_window(a[0], init_like(a[0], -inf), w, "maximum"));
        },
        "torch.square(F.max_pool2d(a, 3, stride=2, padding=1))"),
    // Dilations and padding, with init (0.25) above some windows' maxima.
    row("reduce_window_max_init_dilated", {"reduce_window"}, {uniform({5, 4}, -2, 2, 605), scalar(0.25)},
        [](std::span<const Tensor> a) {
          const Attrs w{{"window_dimensions", Ints{2, 2}},
                        {"window_strides", Ints{1, 2}},
                        {"base_dilations", Ints{1, 2}},
                        {"window_dilations", Ints{2, 1}},
                        {"padding", Ints{0, 1, 1, 0}}};
          return tl::square(reduce_window(a[0], a[1], w, "maximum"));
        }),
    row("reduce_window_min", {"reduce_window"}, {uniform({7}, -2, 2, 606)},
        [](std::span<const Tensor> a) {
          const Attrs w{{"window_dimensions", Ints{3}}, {"window_strides", Ints{2}}};
          return reduce_window(a[0], init_like(a[0], inf), w, "minimum");
        },
        "-F.max_pool1d(-a[None], 3, 2)[0]"),

    // ---- sort ----
    row("sort_dim0", {"sort"}, {uniform({5, 3}, -2, 2, 607)},
        [](std::span<const Tensor> a) { return region_ops::sort({a[0]}, 0)[0] * ramp(a[0], 0); },
        "torch.sort(a, 0).values * torch.arange(1, 6, dtype=a.dtype)[:, None]"),
    // Integer keys with repeats, sorted descending: the stable order of equal keys
    // decides where each value goes.
    row("sort_int_keys_desc", {"sort"},
        {tl::tensor(std::vector<std::int64_t>{2, 0, 2, 1, 1, 1, 0, 3, 5, 5, 5, 5}, {3, 4}), uniform({3, 4}, -2, 2, 608)},
        [](std::span<const Tensor> a) { return region_ops::sort({a[0], a[1]}, 1, "GT")[1] * ramp(a[1], 1); },
        "torch.gather(b, 1, torch.sort(a, dim=1, descending=True, stable=True).indices) * torch.arange(1, 5, dtype=b.dtype)"),
    // Both operands floating: each result's derivative reaches its own operand.
    row("sort_keys_and_values", {"sort"}, {uniform({2, 5}, -2, 2, 609), uniform({2, 5}, -2, 2, 610)},
        [](std::span<const Tensor> a) {
          const std::vector<Tensor> s = region_ops::sort({a[0], a[1]}, 1);
          return s[0] * s[1];
        },
        "(lambda i: torch.gather(a, 1, i) * torch.gather(b, 1, i))(torch.sort(a, 1).indices)"),

    // ---- map ----
    row("map_mul", {"map"}, {uniform({2, 3}, -2, 2, 611), uniform({2, 3}, -2, 2, 612)},
        [](std::span<const Tensor> a) {
          return region_ops::with_body("map", {a[0], a[1]}, {{"dimensions", Ints{0, 1}}}, "mul");
        },
        "a * b"),
    row("map_atan2", {"map"}, {uniform({3}, -2, 2, 613), away_from_zero({3}, 614)},
        [](std::span<const Tensor> a) {
          return region_ops::with_body("map", {a[0], a[1]}, {{"dimensions", Ints{0}}}, "atan2");
        },
        "torch.atan2(a, b)"),
});

}  // namespace
}  // namespace gradcheck
