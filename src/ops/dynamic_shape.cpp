// StableHLO's dynamic-shape ops: dynamic_broadcast_in_dim, dynamic_reshape,
// dynamic_iota, dynamic_pad, dynamic_gather and dynamic_conv. Each is its static
// op with a size (or padding) read from an operand's values. The shape rule only
// sees types, so it returns the declared result type (`?` dims included); the
// kernel reads the operand, lets the static op's rule compute the real type,
// checks it against the declared dims and runs the static op's kernel.
// docs/STABLEHLO.md, "Shapes known at run time".
#include <fmt/format.h>

#include <algorithm>

#include "core/tensor_impl.hpp"
#include "ir/op.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/lax_attrs.hpp"
#include "tlaloc/lax.hpp"

namespace tlaloc {
namespace {

using detail::Attrs;
using detail::fail;
using detail::StableHloAttr;
using detail::TensorType;
using Kind = StableHloAttr::Kind;
using I64s = std::vector<std::int64_t>;

// The declared result dims (kDynamic = -1 where `?`).
const I64s& declared(const Attrs& a) { return a.get<I64s>("shape"); }

// A size operand must be a 1-D integer tensor of `n` elements (n < 0: any).
void check_vector(std::string_view op, const char* what, const TensorType& t, std::int64_t n) {
  const bool ok = is_integral(t.dtype) && t.shape.size() == 1 && (n < 0 || t.shape[0] == n);
  if (!ok)
    fail<ShapeError>(op, "{} is {} {}, not a 1-D integer tensor{}", what, t.dtype, shape_string(t.shape),
                     n < 0 ? std::string() : fmt::format(" of {} elements", n));
}

void check_rank(std::string_view op, const TensorType& t, const I64s& shape) {
  if (t.shape.size() != shape.size())
    fail<ShapeError>(op, "the operand has rank {} but the result {}", t.shape.size(), shape_string(shape));
}

I64s values(const Tensor& t) { return t.astype(DType::i64).to_vector<std::int64_t>(); }

// A real shape against the declared one: same rank, equal where a dim is known.
void check_fits(std::string_view op, const Shape& real, const I64s& want) {
  bool ok = real.size() == want.size();
  for (std::size_t i = 0; ok && i < real.size(); ++i) ok = want[i] < 0 || want[i] == real[i];
  if (!ok)
    fail<ShapeError>(op, "computes shape {} but its result type is {}", shape_string(real),
                     shape_string(want));
}

// The static op's rule, its errors renamed after the dynamic op (same kind).
std::vector<TensorType> infer_as(std::string_view op, const detail::OpDef& def,
                                 std::span<const TensorType> types, const Attrs& a) {
  try {
    return def.infer(types, a);
  } catch (const ShapeError& e) {
    fail<ShapeError>(op, "{}", e.what());
  } catch (const DTypeError& e) {
    fail<DTypeError>(op, "{}", e.what());
  } catch (const AxisError& e) {
    fail<AxisError>(op, "{}", e.what());
  } catch (const ValueError& e) {
    fail<ValueError>(op, "{}", e.what());
  }
}

// Runs the static op `base` with attributes `a` and checks its result type.
std::vector<Tensor> run_static(std::string_view op, const char* base, std::span<const Tensor> in,
                               const Attrs& a, const TensorType& want) {
  const detail::OpDef& def = *detail::find_op(base);
  std::vector<TensorType> types;
  for (const Tensor& t : in) types.push_back(detail::type_of(t));
  const std::vector<TensorType> out = infer_as(op, def, types, a);
  check_fits(op, out[0].shape, want.shape);
  if (out[0].dtype != want.dtype)
    fail<DTypeError>(op, "computes {} elements but its result type has {}", out[0].dtype, want.dtype);
  return def.run(in, a, out);
}

TensorType declared_type(DType t, const Attrs& a) {
  const I64s& s = declared(a);
  return {t, Shape(s.begin(), s.end())};
}

// The sizes a shape operand holds, checked against the declared result.
Shape shape_operand(std::string_view op, const Tensor& t, const I64s& want) {
  const I64s v = values(t);
  for (std::int64_t d : v)
    if (d < 0) fail<ShapeError>(op, "the output shape {} has a negative size", v);
  const Shape s(v.begin(), v.end());
  check_fits(op, s, want);
  detail::numel_of(s);  // refuses a size that overflows
  return s;
}

// ---- dynamic_broadcast_in_dim ------------------------------------------------------

constexpr std::string_view kBcast = "dynamic_broadcast_in_dim";

I64s optional_dims(const Attrs& a, std::string_view key) { return a.has(key) ? a.get<I64s>(key) : I64s{}; }

std::vector<TensorType> bcast_rule(std::span<const TensorType> in, const Attrs& a) {
  const I64s& out = declared(a);
  const I64s& dims = a.get<I64s>("broadcast_dimensions");
  check_vector(kBcast, "output_dimensions", in[1], std::int64_t(out.size()));
  const Shape& s = in[0].shape;
  bool ok = dims.size() == s.size();
  for (std::size_t i = 0; ok && i < dims.size(); ++i) {
    ok = dims[i] >= 0 && std::size_t(dims[i]) < out.size() &&
         std::count(dims.begin(), dims.end(), dims[i]) == 1;
    const std::int64_t r = ok ? out[std::size_t(dims[i])] : 0;
    ok = ok && (s[i] < 0 || r < 0 || s[i] == 1 || s[i] == r);
  }
  if (!ok)
    fail<ShapeError>(kBcast, "cannot broadcast {} to {} (broadcast_dimensions {})", shape_string(s),
                     shape_string(out), dims);
  I64s hints = optional_dims(a, "known_expanding_dimensions");
  const I64s non = optional_dims(a, "known_nonexpanding_dimensions");
  hints.insert(hints.end(), non.begin(), non.end());
  for (std::int64_t d : hints)
    if (d < 0 || std::size_t(d) >= s.size() || std::count(hints.begin(), hints.end(), d) != 1)
      fail<AxisError>(kBcast, "known (non)expanding dimensions {} and {} are not distinct operand axes",
                      optional_dims(a, "known_expanding_dimensions"), non);
  return {declared_type(in[0].dtype, a)};
}

std::vector<Tensor> bcast_kernel(std::span<const Tensor> in, const Attrs& a, std::span<const TensorType>) {
  const Shape out = shape_operand(kBcast, in[1], declared(a));
  const I64s& dims = a.get<I64s>("broadcast_dimensions");
  const Shape& s = in[0].shape();
  // The hints promise how the operand's dims relate to the result's.
  for (std::int64_t d : optional_dims(a, "known_expanding_dimensions"))
    if (s[std::size_t(d)] != 1)
      fail<ShapeError>(kBcast, "operand dim {} is known to expand but has size {}", d, s[std::size_t(d)]);
  for (std::int64_t d : optional_dims(a, "known_nonexpanding_dimensions"))
    if (s[std::size_t(d)] != out[std::size_t(dims[std::size_t(d)])])
      fail<ShapeError>(kBcast, "operand dim {} is known not to expand but {} becomes {}", d, shape_string(s),
                       shape_string(out));
  const Attrs b{{"dims", dims}, {"shape", out}};
  return run_static(kBcast, "broadcast_in_dim", in.first(1), b, declared_type(in[0].dtype(), a));
}

const detail::OpDef& bcast_op =
    detail::def_op("dynamic_broadcast_in_dim")
        .inputs(2)
        .shape_rule(bcast_rule)
        .kernel(bcast_kernel)
        .stablehlo({"stablehlo.dynamic_broadcast_in_dim",
                    {StableHloAttr("broadcast_dimensions", Kind::i64_array).pretty("dims"),
                     StableHloAttr("known_expanding_dimensions", Kind::i64_array).optional(),
                     StableHloAttr("known_nonexpanding_dimensions", Kind::i64_array).optional(),
                     StableHloAttr("result_shape", Kind::result_shape).as("shape")},
                    "keywords"})
        .cpp([](detail::CppOp& op) {
          const Attrs& a = op.attrs();
          return detail::cpp_call(
              "tl::lax::dynamic_broadcast_in_dim", op,
              {detail::cpp_ints(a.get<I64s>("broadcast_dimensions")), detail::cpp_shape(declared(a)),
               detail::cpp_ints(optional_dims(a, "known_expanding_dimensions")),
               detail::cpp_ints(optional_dims(a, "known_nonexpanding_dimensions"))});
        });

// ---- dynamic_reshape -----------------------------------------------------------------

constexpr std::string_view kReshape = "dynamic_reshape";

std::vector<TensorType> reshape_rule(std::span<const TensorType> in, const Attrs& a) {
  const I64s& out = declared(a);
  check_vector(kReshape, "output_shape", in[1], std::int64_t(out.size()));
  const bool known = std::none_of(out.begin(), out.end(), [](auto d) { return d < 0; }) &&
                     std::none_of(in[0].shape.begin(), in[0].shape.end(), [](auto d) { return d < 0; });
  if (known && detail::numel_of(in[0].shape) != detail::numel_of(out))
    fail<ShapeError>(kReshape, "cannot reshape {} into {}", shape_string(in[0].shape), shape_string(out));
  return {declared_type(in[0].dtype, a)};
}

const detail::OpDef& reshape_op =
    detail::def_op("dynamic_reshape")
        .inputs(2)
        .shape_rule(reshape_rule)
        .kernel([](std::span<const Tensor> in, const Attrs& a, std::span<const TensorType>) {
          const Attrs b{{"shape", shape_operand(kReshape, in[1], declared(a))}};
          return run_static(kReshape, "reshape", in.first(1), b, declared_type(in[0].dtype(), a));
        })
        .stablehlo({"stablehlo.dynamic_reshape",
                    {StableHloAttr("result_shape", Kind::result_shape).as("shape")},
                    "elementwise"})
        .cpp([](detail::CppOp& op) {
          return detail::cpp_call("tl::lax::dynamic_reshape", op, {detail::cpp_shape(declared(op.attrs()))});
        });

// ---- dynamic_iota ----------------------------------------------------------------------

constexpr std::string_view kIota = "dynamic_iota";

std::vector<TensorType> iota_rule(std::span<const TensorType> in, const Attrs& a) {
  const I64s& out = declared(a);
  check_vector(kIota, "output_shape", in[0], std::int64_t(out.size()));
  const std::int64_t axis = a.get<std::int64_t>("iota_dimension");
  if (axis < 0 || axis >= std::int64_t(out.size()))
    fail<AxisError>(kIota, "iota_dimension {} is out of range for {}", axis, shape_string(out));
  const DType t = a.get<DType>("dtype");
  if (t == DType::boolean) fail<DTypeError>(kIota, "cannot count in bool");
  return {declared_type(t, a)};
}

const detail::OpDef& iota_op =
    detail::def_op("dynamic_iota")
        .no_derivative()  // counts, whatever their dtype; the operand is a shape
        .inputs(1)
        .shape_rule(iota_rule)
        .kernel([](std::span<const Tensor> in, const Attrs& a, std::span<const TensorType>) {
          const DType t = a.get<DType>("dtype");
          const Attrs b{{"shape", shape_operand(kIota, in[0], declared(a))},
                        {"iota_dimension", a.get<std::int64_t>("iota_dimension")},
                        {"dtype", t}};
          return run_static(kIota, "iota", {}, b, declared_type(t, a));
        })
        .stablehlo({"stablehlo.dynamic_iota",
                    {StableHloAttr("iota_dimension", Kind::i64).pretty("dim"),
                     StableHloAttr("result_shape", Kind::result_shape).as("shape"),
                     StableHloAttr("result_dtype", Kind::result_dtype).as("dtype")},
                    "keywords"})
        .cpp([](detail::CppOp& op) {
          const Attrs& a = op.attrs();
          return detail::cpp_call("tl::lax::dynamic_iota", op,
                                  {fmt::format("{}", a.get<std::int64_t>("iota_dimension")),
                                   detail::cpp_dtype(a.get<DType>("dtype")), detail::cpp_shape(declared(a))});
        });

// ---- dynamic_pad -------------------------------------------------------------------------

constexpr std::string_view kPad = "dynamic_pad";

std::vector<TensorType> pad_rule(std::span<const TensorType> in, const Attrs& a) {
  const std::int64_t r = std::int64_t(in[0].shape.size());
  check_vector(kPad, "edge_padding_low", in[2], r);
  check_vector(kPad, "edge_padding_high", in[3], r);
  check_vector(kPad, "interior_padding", in[4], r);
  if (!in[1].shape.empty() || in[1].dtype != in[0].dtype)
    fail<DTypeError>(kPad, "the padding value must be a rank-0 {} tensor, got {} {}", in[0].dtype,
                     in[1].dtype, shape_string(in[1].shape));
  check_rank(kPad, in[0], declared(a));
  return {declared_type(in[0].dtype, a)};
}

const detail::OpDef& pad_op =
    detail::def_op("dynamic_pad")
        .inputs(5)
        .shape_rule(pad_rule)
        .kernel([](std::span<const Tensor> in, const Attrs& a, std::span<const TensorType>) {
          const Attrs b{{"edge_padding_low", values(in[2])},
                        {"edge_padding_high", values(in[3])},
                        {"interior_padding", values(in[4])}};
          return run_static(kPad, "pad", in.first(2), b, declared_type(in[0].dtype(), a));
        })
        .stablehlo({"stablehlo.dynamic_pad",
                    {StableHloAttr("result_shape", Kind::result_shape).as("shape")},
                    "elementwise"})
        .cpp([](detail::CppOp& op) {
          return detail::cpp_call("tl::lax::dynamic_pad", op, {detail::cpp_shape(declared(op.attrs()))});
        });

// ---- dynamic_gather ------------------------------------------------------------------------

constexpr std::string_view kGather = "dynamic_gather";

const detail::OpDef& gather_op =
    detail::def_op("dynamic_gather")
        .inputs(3)
        .shape_rule([](std::span<const TensorType> in, const Attrs& a) {
          check_vector(kGather, "slice_sizes", in[2], std::int64_t(in[0].shape.size()));
          if (!is_integral(in[1].dtype))
            fail<DTypeError>(kGather, "start indices must be integers, got {}", in[1].dtype);
          return std::vector<TensorType>{declared_type(in[0].dtype, a)};
        })
        .kernel([](std::span<const Tensor> in, const Attrs& a, std::span<const TensorType>) {
          Attrs b = a;
          b.set("slice_sizes", values(in[2]));
          return run_static(kGather, "gather", in.first(2), b, declared_type(in[0].dtype(), a));
        })
        .stablehlo({"stablehlo.dynamic_gather",
                    {StableHloAttr("dimension_numbers", Kind::gather_dimension_numbers),
                     StableHloAttr("indices_are_sorted", Kind::boolean).optional(),
                     StableHloAttr("result_shape", Kind::result_shape).as("shape")},
                    ""})
        .cpp([](detail::CppOp& op) {
          const Attrs& a = op.attrs();
          const bool sorted = a.has("indices_are_sorted") && a.get<bool>("indices_are_sorted");
          return detail::cpp_call("tl::lax::dynamic_gather", op,
                                  {detail::cpp_gather_dimension_numbers(a), detail::cpp_bool(sorted),
                                   detail::cpp_shape(declared(a))});
        });

// ---- dynamic_conv ----------------------------------------------------------------------------

constexpr std::string_view kConv = "dynamic_conv";

const detail::OpDef& conv_op =
    detail::def_op("dynamic_conv")
        .inputs(3)
        .shape_rule([](std::span<const TensorType> in, const Attrs& a) {
          const std::size_t n = a.get<I64s>("input_spatial_dimensions").size();
          if (!is_integral(in[2].dtype) || in[2].shape != Shape{std::int64_t(n), 2})
            fail<ShapeError>(kConv, "padding is {} {}, not an integer tensor of shape [{}, 2]", in[2].dtype,
                             shape_string(in[2].shape), n);
          check_rank(kConv, in[0], declared(a));
          return std::vector<TensorType>{declared_type(a.get<DType>("result_element_type"), a)};
        })
        .kernel([](std::span<const Tensor> in, const Attrs& a, std::span<const TensorType>) {
          Attrs b = a;
          b.set("padding", values(in[2]));  // row-major [low, high] per spatial dim
          const TensorType want = declared_type(a.get<DType>("result_element_type"), a);
          return run_static(kConv, "convolution", in.first(2), b, want);
        })
        .stablehlo(
            {"stablehlo.dynamic_conv",
             {StableHloAttr("window_strides", Kind::i64_array).optional(),
              StableHloAttr("lhs_dilation", Kind::i64_array).optional(),
              StableHloAttr("rhs_dilation", Kind::i64_array).optional(),
              StableHloAttr("window_reversal", Kind::bool_array).optional(),
              StableHloAttr("dimension_numbers", Kind::conv_dimension_numbers),
              StableHloAttr("feature_group_count", Kind::i64), StableHloAttr("batch_group_count", Kind::i64),
              StableHloAttr("precision_config", Kind::precision_list).optional(),
              StableHloAttr("result_element_type", Kind::result_dtype),
              StableHloAttr("result_shape", Kind::result_shape).as("shape")},
             ""})
        .cpp([](detail::CppOp& op) {
          std::vector<std::string> args = detail::cpp_conv_arguments(op.attrs(), false);
          args.insert(args.end(), {detail::cpp_dtype(op.attrs().get<DType>("result_element_type")),
                                   detail::cpp_shape(declared(op.attrs()))});
          return detail::cpp_call("tl::lax::dynamic_conv", op, args);
        });

}  // namespace
Tensor lax::dynamic_broadcast_in_dim(const Tensor& x, const Tensor& output_dimensions,
                                     const I64s& broadcast_dimensions, const Shape& result_shape,
                                     const I64s& known_expanding_dimensions,
                                     const I64s& known_nonexpanding_dimensions) {
  return detail::call1(bcast_op, {x, output_dimensions},
                       {{"broadcast_dimensions", broadcast_dimensions},
                        {"known_expanding_dimensions", known_expanding_dimensions},
                        {"known_nonexpanding_dimensions", known_nonexpanding_dimensions},
                        {"shape", result_shape}});
}

Tensor lax::dynamic_reshape(const Tensor& x, const Tensor& output_shape, const Shape& result_shape) {
  return detail::call1(reshape_op, {x, output_shape}, {{"shape", result_shape}});
}

Tensor lax::dynamic_iota(const Tensor& output_shape, std::int64_t iota_dimension, DType dtype,
                         const Shape& result_shape) {
  return detail::call1(iota_op, {output_shape},
                       {{"iota_dimension", iota_dimension}, {"dtype", dtype}, {"shape", result_shape}});
}

Tensor lax::dynamic_pad(const Tensor& x, const Tensor& value, const Tensor& edge_padding_low,
                        const Tensor& edge_padding_high, const Tensor& interior_padding,
                        const Shape& result_shape) {
  return detail::call1(pad_op, {x, value, edge_padding_low, edge_padding_high, interior_padding},
                       {{"shape", result_shape}});
}

Tensor lax::dynamic_gather(const Tensor& x, const Tensor& start_indices, const Tensor& slice_sizes,
                           const GatherDimensionNumbers& dims, bool indices_are_sorted,
                           const Shape& result_shape) {
  detail::Attrs attrs = detail::gather_attrs(dims, nullptr, indices_are_sorted);
  attrs.set("shape", result_shape);
  return detail::call1(gather_op, {x, start_indices, slice_sizes}, attrs);
}

Tensor lax::dynamic_conv(const Tensor& lhs, const Tensor& rhs, const Tensor& padding,
                         const ConvDimensionNumbers& dims, const I64s& window_strides,
                         const I64s& lhs_dilation, const I64s& rhs_dilation, const I64s& window_reversal,
                         std::int64_t feature_group_count, std::int64_t batch_group_count,
                         DType result_element_type, const Shape& result_shape) {
  detail::Attrs attrs = detail::conv_attrs(dims, window_strides, nullptr, lhs_dilation, rhs_dilation, window_reversal,
                                           feature_group_count, batch_group_count, result_element_type);
  attrs.set("shape", result_shape);
  return detail::call1(conv_op, {lhs, rhs, padding}, attrs);
}

}  // namespace tlaloc
