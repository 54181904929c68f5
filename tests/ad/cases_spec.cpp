// Rows for the StableHLO-level elementwise ops that no library function spells
// (src/ops/elementwise_spec.cpp, bit_convert.cpp): divide, fmod, cbrt, clamp,
// round_nearest_afz and reduce_precision, called through the registry.
#include "ad/gradcheck.hpp"
#include "ir/op.hpp"

namespace gradcheck {
namespace {

using Fn = std::function<Tensor(std::span<const Tensor>)>;

Tensor op(std::string_view name, std::vector<Tensor> in, tl::detail::Attrs attrs = {}) {
  return tl::detail::call1(*tl::detail::find_op(name), in, attrs);
}

Case row(std::string name, std::vector<Tensor> in, Fn fn, std::string torch, bool second = true) {
  Case c{"spec/" + name, {name}, std::move(in), std::move(fn), second};
  c.torch = std::move(torch);
  return c;
}

const tl::Shape s23{2, 3};

Case clamp_row(std::string suffix, std::vector<Tensor> in, std::string torch) {
  Case c = row("clamp", std::move(in), [](std::span<const Tensor> a) { return op("clamp", {a[0], a[1], a[2]}); },
               std::move(torch));
  c.name += suffix;
  return c;
}

const bool added = add({
    row("divide", {uniform(s23, -2, 2, 1), away_from_zero(s23, 2)},
        [](std::span<const Tensor> a) { return op("divide", {a[0], a[1]}); }, "torch.div(a, b)"),
    // Quotients a / b kept away from integers, where fmod jumps.
    row("fmod",
        {tl::tensor({2.3, -2.3, 0.4, -1.7, 3.1, 0.9}, s23), tl::tensor({0.9, 0.8, -1.1, 1.3, -1.4, 2.0}, s23)},
        [](std::span<const Tensor> a) { return op("fmod", {a[0], a[1]}); }, "torch.fmod(a, b)"),
    row("cbrt", {away_from_zero(s23, 3)}, [](std::span<const Tensor> a) { return op("cbrt", {a[0]}); },
        "torch.sign(a) * torch.abs(a).pow(1.0 / 3)"),
    // Operand order (min, operand, max); elements below, inside and above.
    clamp_row("_scalar_bounds", {tl::scalar_tensor(-0.5, tl::DType::f64), uniform(s23, -2, 2, 4),
                                 tl::scalar_tensor(0.7, tl::DType::f64)},
              "torch.clamp(b, a, c)"),
    clamp_row("_tensor_bounds", {uniform(s23, -1, -0.1, 5), uniform(s23, -2, 2, 6), uniform({3}, 0.2, 1, 7)},
              "torch.clamp(b, a, c)"),
    // No derivative of its own: only the factor a is differentiated.
    row("round_nearest_afz", {tl::tensor({-2.3, -0.7, 0.2, 1.4, 1.6, 2.8}, s23)},
        [](std::span<const Tensor> a) { return a[0] * op("round_nearest_afz", {a[0]}); },
        "a * torch.where(a >= 0, torch.floor(a + 0.5), torch.ceil(a - 0.5))"),
});

// reduce_precision to f32's widths: straight through. The difference quotients see
// f32 rounding, hence the large step.
const bool added_reduce_precision = add({[] {
  Case c = row("reduce_precision", {uniform(s23, -2, 2, 8)},
               [](std::span<const Tensor> a) {
                 return tl::square(
                     op("reduce_precision", {a[0]}, {{"exponent_bits", std::int64_t(8)}, {"mantissa_bits", std::int64_t(23)}}));
               },
               "torch.square(a.float().double())");
  c.h = 1e-2;
  c.tol = 1e-4;
  return c;
}()});

}  // namespace
}  // namespace gradcheck
