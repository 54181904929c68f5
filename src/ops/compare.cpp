// stablehlo.compare: comparison_direction (EQ, NE, GE, GT, LE, LT) under a
// compare_type: FLOAT (IEEE: NaN is unordered, so only NE holds), TOTALORDER
// (-NaN < -Inf < ... < -0 < +0 < ... < Inf < NaN), SIGNED or UNSIGNED. Without a
// compare_type the element type picks one (floats FLOAT, i1 and ui UNSIGNED).
#include <fmt/format.h>

#include <bit>
#include <cmath>

#include "ops/cpp_spelling.hpp"
#include "ops/elementwise_defs.hpp"
#include "tlaloc/lax.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc {
namespace {

using detail::Attrs;
using detail::OpDef;
using detail::StableHloAttr;
using detail::TensorType;

enum class Dir : std::uint8_t { eq, ne, ge, gt, le, lt };

Dir direction(const Attrs& a) {
  const std::string& d = a.get<std::string>("comparison_direction");
  constexpr std::pair<const char*, Dir> names[] = {{"EQ", Dir::eq}, {"NE", Dir::ne}, {"GE", Dir::ge},
                                                   {"GT", Dir::gt}, {"LE", Dir::le}, {"LT", Dir::lt}};
  for (const auto& [n, v] : names)
    if (d == n) return v;
  detail::fail<ValueError>("compare", "has no comparison_direction '{}' (EQ, NE, GE, GT, LE, LT)", d);
}

bool is_unsigned_type(DType t) { return t == DType::boolean || is_unsigned(t); }

// The compare_type, checked against the operands' element type.
std::string compare_type(const Attrs& a, DType t) {
  const std::string def = is_inexact(t) ? "FLOAT" : is_unsigned_type(t) ? "UNSIGNED" : "SIGNED";
  if (!a.has("compare_type")) return def;
  const std::string& c = a.get<std::string>("compare_type");
  const bool ok = is_inexact(t) ? (c == "FLOAT" || c == "TOTALORDER") : c == def;
  if (!ok) detail::fail<DTypeError>("compare", "compare_type {} does not apply to {} operands", c, t);
  return c;
}

template <class C>
bool apply(Dir d, C x, C y) {
  switch (d) {
    case Dir::eq:
      return x == y;
    case Dir::ne:
      return x != y;
    case Dir::ge:
      return x >= y;
    case Dir::gt:
      return x > y;
    case Dir::le:
      return x <= y;
    case Dir::lt:
      return x < y;
  }
  return false;
}

// Complex values compare as (real, imaginary) pairs, lexicographically (the spec's
// rule); `key` maps a part to what is compared (itself, or its total-order key).
template <class Z, class Key>
bool apply_complex(Dir d, Z x, Z y, Key key) {
  const auto xr = key(x.real()), yr = key(y.real()), xi = key(x.imag()), yi = key(y.imag());
  switch (d) {
    case Dir::eq:
      return xr == yr && xi == yi;
    case Dir::ne:
      return !(xr == yr && xi == yi);
    case Dir::ge:
      return xr > yr || (xr == yr && xi >= yi);
    case Dir::gt:
      return xr > yr || (xr == yr && xi > yi);
    case Dir::le:
      return xr < yr || (xr == yr && xi <= yi);
    case Dir::lt:
      return xr < yr || (xr == yr && xi < yi);
  }
  return false;
}

// A float's position in the total order, as a signed integer: negative values
// have their magnitude bits flipped so that larger magnitudes sort lower.
std::int64_t total_key(double v) {
  const auto b = std::bit_cast<std::int64_t>(v);
  return b < 0 ? b ^ std::numeric_limits<std::int64_t>::max() : b;
}

const OpDef& compare_op =
    detail::def_op("compare")
        .no_derivative()  // bool results
        .cpp([](detail::CppOp& op) {
          std::vector<std::string> extra{detail::cpp_string(op.attrs().get<std::string>("comparison_direction"))};
          if (op.attrs().has("compare_type"))
            extra.push_back(detail::cpp_string(op.attrs().get<std::string>("compare_type")));
          return detail::cpp_call("tl::lax::compare", op, extra);
        })
        .inputs(2)
        .elementwise()
        .stablehlo({"stablehlo.compare",
                    {StableHloAttr("comparison_direction", StableHloAttr::Kind::enum_value)
                         .of_enum("comparison_direction"),
                     StableHloAttr("compare_type", StableHloAttr::Kind::enum_value)
                         .of_enum("comparison_type")
                         .optional()},
                    "compare"})
        .shape_rule([](std::span<const TensorType> in, const Attrs& a) {
          direction(a);
          compare_type(a, promote_types(in[0].dtype, in[1].dtype));
          return detail::broadcast_rule("compare", detail::ResultType::boolean)(in, a);
        })
        .kernel([](std::span<const Tensor> in, const Attrs& a, std::span<const TensorType> out) {
          const DType t = promote_types(in[0].dtype(), in[1].dtype());
          const Dir d = direction(a);
          const bool total = compare_type(a, t) == "TOTALORDER";
          const Tensor x = in[0].astype(t), y = in[1].astype(t);
          Tensor r = detail::empty(out[0].shape, DType::boolean);
          TLALOC_SWITCH_WITH_COMPLEX(t, "compare", {
            detail::binary_loop<bool, T>(x, y, r, [d, total](auto u, auto v) {
              if constexpr (detail::is_complex_v<decltype(u)>) {
                if (total) return apply_complex(d, u, v, [](auto p) { return total_key(double(p)); });
                return apply_complex(d, u, v, [](auto p) { return p; });
              } else {
                if constexpr (std::is_floating_point_v<decltype(u)>) {
                  if (total) return apply(d, total_key(double(u)), total_key(double(v)));
                }
                return apply(d, u, v);
              }
            });
          })
          return std::vector<Tensor>{r};
        });

}  // namespace

Tensor lax::compare(const Tensor& a, const Tensor& b, const std::string& direction, const std::string& compare_type) {
  detail::Attrs attrs{{"comparison_direction", direction}};
  if (!compare_type.empty()) attrs.set("compare_type", compare_type);
  return detail::call1(compare_op, {a, b}, attrs);
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  const Tensor x = a.astype(DType::f64), y = b.astype(DType::f64);
  Tensor close = (x == y) | (abs(x - y) <= atol + rtol * abs(y));
  if (equal_nan) close = close | (isnan(x) & isnan(y));
  return all(close).item<bool>();
}

}  // namespace tlaloc
