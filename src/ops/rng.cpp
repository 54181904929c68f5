// StableHLO's rng and rng_bit_generator on the threefry-2x32 block function
// (core/threefry). The spec leaves the bits to the implementation; the choices
// are documented in docs/STABLEHLO.md ("Random numbers").
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "core/dispatch_type.hpp"
#include "core/tensor_impl.hpp"
#include "core/threefry.hpp"
#include "ir/op.hpp"
#include "ops/cpp_spelling.hpp"
#include "tlaloc/lax.hpp"

namespace tlaloc {
namespace {

using detail::Attrs;
using detail::fail;
using detail::StableHloAttr;
using detail::TensorType;
using Kind = StableHloAttr::Kind;
using I64s = std::vector<std::int64_t>;

// ---- rng ---------------------------------------------------------------------

// Every rng call draws from this key: equal calls give equal values.
constexpr detail::rng::Key kRngKey = {0, 0};

// The result shape from the shape operand; a static result type must agree.
Shape rng_shape(const Tensor& shape, const I64s& declared) {
  Shape out;
  for (std::int64_t d : shape.to_vector<std::int64_t>()) out.push_back(d);
  bool ok = out.size() == declared.size();
  for (std::size_t i = 0; ok && i < out.size(); ++i)
    ok = out[i] >= 0 && (declared[i] < 0 || declared[i] == out[i]);
  if (!ok)
    fail<ShapeError>("rng", "the shape operand {} does not fit the result shape {}", shape_string(out),
                     shape_string(declared));
  return out;
}

// UNIFORM on [a, b): a + u (b - a) with u in [0, 1) from 53 random bits,
// rounded to the result type; a value that rounds up to b becomes a.
// NORMAL: a + b z, z standard normal (threefry normal_f64).
std::vector<Tensor> rng_kernel(std::span<const Tensor> in, const Attrs& attrs,
                               std::span<const TensorType> out) {
  const Shape shape = rng_shape(in[2], attrs.get<I64s>("shape"));
  const double a = in[0].to_vector<double>()[0], b = in[1].to_vector<double>()[0];
  std::size_t n = 1;
  for (std::int64_t d : shape) n *= std::size_t(d);
  std::vector<double> v(n);
  const bool normal = attrs.get<std::string>("rng_distribution") == "NORMAL";
  if (normal) {
    detail::rng::normal_f64(kRngKey, v.data(), n);
    for (double& x : v) x = a + b * x;
  } else {
    detail::rng::uniform_f64(kRngKey, 0.0, 1.0, v.data(), n);
    for (double& x : v) x = is_floating(out[0].dtype) ? a + x * (b - a) : a + std::floor(x * (b - a));
  }
  Tensor y = tensor(v, shape).astype(out[0].dtype);
  if (normal) return {y};
  const std::vector<double> r = y.to_vector<double>();
  for (std::size_t i = 0; i < n; ++i)
    if (r[i] >= b) v[i] = a;  // rounded up to b
  return {tensor(v, shape).astype(out[0].dtype)};
}

std::vector<TensorType> rng_rule(std::span<const TensorType> in, const Attrs& attrs) {
  const std::string& dist = attrs.get<std::string>("rng_distribution");
  const DType t = in[0].dtype;
  if (dist != "UNIFORM" && dist != "NORMAL") fail<ValueError>("rng", "has no distribution {}", dist);
  if (!in[0].shape.empty() || !in[1].shape.empty() || in[1].dtype != t)
    fail<ShapeError>("rng", "a and b must be scalars of one type, got {} {} and {} {}",
                     shape_string(in[0].shape), t, shape_string(in[1].shape), in[1].dtype);
  if (dist == "NORMAL" ? !is_floating(t) : t == DType::boolean)
    fail<DTypeError>("rng", "{} does not take {} values", dist, t);
  const I64s& shape = attrs.get<I64s>("shape");
  if (in[2].shape != Shape{std::int64_t(shape.size())} || !is_integral(in[2].dtype))
    fail<ShapeError>("rng", "the shape operand is {} {}, not a 1-D integer tensor of {} elements",
                     shape_string(in[2].shape), in[2].dtype, shape.size());
  return {{t, Shape(shape.begin(), shape.end())}};
}

const detail::OpDef& rng_op =
    detail::def_op("rng")
        .inputs(3)
        .shape_rule(rng_rule)
        .kernel(rng_kernel)
        .stablehlo({"stablehlo.rng",
                    {StableHloAttr("rng_distribution", Kind::enum_value)
                         .of_enum("rng_distribution")
                         .pretty("distribution"),
                     StableHloAttr("result_shape", Kind::result_shape).as("shape")},
                    "keywords"})
        .cpp([](detail::CppOp& op) {
          return detail::cpp_call("tl::lax::rng", op,
                                  {detail::cpp_string(op.attrs().get<std::string>("rng_distribution")),
                                   detail::cpp_shape(op.attrs().get<I64s>("shape"))});
        });

// ---- rng_bit_generator ------------------------------------------------------------

// The state is ui64[2]: the key (high word first) and a block counter. Block i
// hashes counter + i (high word first) into 64 bits, y0 high; the output is the
// row-major bytes of those 64-bit words, little-endian, cut into elements. The
// output state advances the counter by the blocks used.
std::vector<Tensor> bit_generator_kernel(std::span<const Tensor> in, const Attrs&,
                                         std::span<const TensorType> out) {
  const std::vector<std::uint64_t> state = in[0].to_vector<std::uint64_t>();
  const detail::rng::Key key = {std::uint32_t(state[0] >> 32), std::uint32_t(state[0])};
  Tensor y = detail::empty(out[1].shape, out[1].dtype);
  const std::size_t bytes = std::size_t(y.numel()) * itemsize(y.dtype());
  const std::size_t blocks = (bytes + 7) / 8;
  std::vector<std::uint64_t> words(blocks);
  for (std::size_t i = 0; i < blocks; ++i) {
    const std::uint64_t c = state[1] + i;
    const detail::rng::Counter r = detail::rng::threefry2x32(key, {std::uint32_t(c >> 32), std::uint32_t(c)});
    const std::uint64_t w = std::uint64_t(r[0]) << 32 | r[1];
    unsigned char le[8];
    for (int k = 0; k < 8; ++k) le[k] = static_cast<unsigned char>(w >> (8 * k));
    std::memcpy(&words[i], le, 8);
  }
  if (bytes > 0) std::memcpy(detail::mutable_data<unsigned char>(y), words.data(), bytes);
  const std::vector<std::uint64_t> next = {state[0], state[1] + blocks};
  return {tensor(next, {2}).astype(DType::u64), y};
}

std::vector<TensorType> bit_generator_rule(std::span<const TensorType> in, const Attrs& attrs) {
  const std::string& alg = attrs.get<std::string>("rng_algorithm");
  if (alg == "PHILOX") fail<ValueError>("rng_bit_generator", "the PHILOX algorithm is not supported");
  if (alg != "DEFAULT" && alg != "THREE_FRY")
    fail<ValueError>("rng_bit_generator", "has no algorithm {}", alg);
  if (in[0] != TensorType{DType::u64, {2}})
    fail<ShapeError>("rng_bit_generator", "{} needs a ui64[2] state, got {} {}", alg, in[0].dtype,
                     shape_string(in[0].shape));
  const DType t = attrs.get<DType>("dtype");
  if (t == DType::boolean) fail<DTypeError>("rng_bit_generator", "does not produce bool tensors");
  const I64s& shape = attrs.get<I64s>("shape");
  for (std::int64_t d : shape)
    if (d < 0)
      fail<ShapeError>("rng_bit_generator", "needs a static output shape, got {}", shape_string(shape));
  return {in[0], {t, Shape(shape.begin(), shape.end())}};
}

const detail::OpDef& bit_generator_op =
    detail::def_op("rng_bit_generator")
        .no_derivative()  // a state and bits
        .result_count([](std::size_t, const Attrs&) -> std::size_t { return 2; })
        .inputs(1)
        .shape_rule(bit_generator_rule)
        .kernel(bit_generator_kernel)
        .stablehlo(
            {"stablehlo.rng_bit_generator",
             {StableHloAttr("rng_algorithm", Kind::enum_value).of_enum("rng_algorithm").pretty("algorithm"),
              StableHloAttr("output_shape", Kind::result_shape).as("shape").of_result(1),
              StableHloAttr("output_dtype", Kind::result_dtype).as("dtype").of_result(1)},
             "keywords"})
        .cpp([](detail::CppOp& op) {
          const Attrs& a = op.attrs();
          return detail::cpp_call(
              "tl::lax::rng_bit_generator", op,
              {detail::cpp_string(a.get<std::string>("rng_algorithm")),
               detail::cpp_shape(a.get<I64s>("shape")), detail::cpp_dtype(a.get<DType>("dtype"))});
        });

}  // namespace
Tensor lax::rng(const Tensor& a, const Tensor& b, const Tensor& shape, const std::string& distribution,
                const Shape& result_shape) {
  return detail::call1(rng_op, {a, b, shape}, {{"rng_distribution", distribution}, {"shape", result_shape}});
}

std::vector<Tensor> lax::rng_bit_generator(const Tensor& state, const std::string& algorithm,
                                           const Shape& shape, DType dtype) {
  return detail::call(bit_generator_op, {state},
                      {{"rng_algorithm", algorithm}, {"shape", shape}, {"dtype", dtype}});
}

}  // namespace tlaloc
