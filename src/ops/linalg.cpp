// Matrix products. One primitive, StableHLO's dot_general; matmul and outer are
// composites. dot_general hands BLAS the operands' own buffers whenever they are
// already laid out as [batch, rows, cols] or its per-batch transpose.
#include <fmt/format.h>

#include <algorithm>
#include <type_traits>

#include "core/dispatch_type.hpp"
#include "core/gemm.hpp"
#include "core/layout.hpp"
#include "core/tensor_impl.hpp"
#include "ir/op.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/elementwise_rules.hpp"
#include "ops/like.hpp"
#include "ops/product_share.hpp"
#include "ops/rule.hpp"
#include "tlaloc/derivatives.hpp"
#include "tlaloc/lax.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc {
namespace {

using detail::Attrs;
using detail::call1;
using detail::def_op;
using detail::fail;
using detail::OpDef;
using detail::TensorType;
using Dims = std::vector<std::int64_t>;

DotDims read_dims(const Attrs& attrs) {
  return {attrs.get<Dims>("lhs_batching_dimensions"), attrs.get<Dims>("rhs_batching_dimensions"),
          attrs.get<Dims>("lhs_contracting_dimensions"), attrs.get<Dims>("rhs_contracting_dimensions")};
}

// The dims of an operand that are neither batch nor contracting, in increasing order.
Dims free_dims(std::size_t rank, const Dims& batch, const Dims& contract) {
  std::vector<bool> used(rank, false);
  for (auto d : batch) used[std::size_t(d)] = true;
  for (auto d : contract) used[std::size_t(d)] = true;
  Dims out;
  for (std::size_t d = 0; d < rank; ++d)
    if (!used[d]) out.push_back(std::int64_t(d));
  return out;
}

void check_dims(const char* side, const Shape& s, const Dims& batch, const Dims& contract) {
  std::vector<bool> used(s.size(), false);
  for (const Dims* dims : {&batch, &contract}) {
    for (auto d : *dims) {
      if (d < 0 || d >= std::int64_t(s.size()))
        fail<AxisError>("dot_general", "{} dimension {} is out of range for {} shape {}", side, d, side,
                        shape_string(s));
      if (used[std::size_t(d)])
        fail<AxisError>("dot_general",
                        "{} dimension {} appears twice in batch {} and contracting {} (shape {})", side, d,
                        batch, contract, shape_string(s));
      used[std::size_t(d)] = true;
    }
  }
}

void check_pairs(const char* what, const Shape& ls, const Dims& ld, const Shape& rs, const Dims& rd) {
  if (ld.size() != rd.size())
    fail<ShapeError>("dot_general", "{} dims differ in number: lhs {} of shape {}, rhs {} of shape {}", what,
                     ld, shape_string(ls), rd, shape_string(rs));
  for (std::size_t i = 0; i < ld.size(); ++i) {
    const std::int64_t l = ls[std::size_t(ld[i])], r = rs[std::size_t(rd[i])];
    if (l != r)
      fail<ShapeError>("dot_general",
                       "{} dimension {} of lhs {} has size {} but dimension {} of rhs {} has size {}", what,
                       ld[i], shape_string(ls), l, rd[i], shape_string(rs), r);
  }
}

// Significand bits (the implicit one included) of a precision type an algorithm
// names; 0 for the integer types, which this kernel computes exactly.
int significand_bits(std::string_view name) {
  constexpr std::pair<std::string_view, int> kBits[] = {
      {"f64", 53}, {"f32", 24}, {"tf32", 11}, {"f16", 11}, {"bf16", 8}};
  for (const auto& [n, bits] : kBits)
    if (n == name) return bits;
  return name.size() > 1 && name[0] == 'f' ? 5 : 0;  // the 4-, 6- and 8-bit floats have at most 5
}

// The spec leaves the algorithms an implementation runs to it. The kernel computes in
// f32 (f64 for f64 operands) and accumulates there: an algorithm asking for no more
// than that is met; one asking for more is refused, never silently weakened.
void check_algorithm(const Attrs& attrs, DType result) {
  if (!attrs.has("algorithm.accumulation_type") || !is_inexact(result)) return;
  const int have = real_dtype(result) == DType::f64 ? 53 : 24;
  for (const char* f : {"lhs_precision_type", "rhs_precision_type", "accumulation_type"}) {
    const auto& name = attrs.get<std::string>(fmt::format("algorithm.{}", f));
    if (significand_bits(name) > have)
      fail<DTypeError>("dot_general",
                       "its algorithm asks for {} = {}, more precise than the {} a {} result is computed in",
                       f, name, have == 53 ? "f64" : "f32", result);
  }
  for (const char* f : {"lhs_component_count", "rhs_component_count", "num_primitive_operations"})
    if (attrs.get<std::int64_t>(fmt::format("algorithm.{}", f)) < 1)
      fail<ValueError>("dot_general", "its algorithm's {} must be at least 1", f);
}

std::vector<TensorType> dot_rule(std::span<const TensorType> in, const Attrs& attrs) {
  const DotDims d = read_dims(attrs);
  const Shape &ls = in[0].shape, &rs = in[1].shape;
  check_dims("lhs", ls, d.lhs_batch, d.lhs_contract);
  check_dims("rhs", rs, d.rhs_batch, d.rhs_contract);
  check_pairs("batch", ls, d.lhs_batch, rs, d.rhs_batch);
  check_pairs("contracting", ls, d.lhs_contract, rs, d.rhs_contract);
  // The spec lets the result's element type differ from the operands' (i8 x i8 -> i32).
  const DType promoted = detail::promote_for("dot_general", in[0].dtype, in[1].dtype);
  const DType t = attrs.has("preferred_element_type") ? attrs.get<DType>("preferred_element_type") : promoted;
  if (t == DType::boolean || promoted == DType::boolean)
    fail<DTypeError>("dot_general", "no kernel for {} x {} (shapes {} and {})", in[0].dtype, in[1].dtype,
                     shape_string(ls), shape_string(rs));
  check_algorithm(attrs, t);
  Shape out;
  for (auto b : d.lhs_batch) out.push_back(ls[std::size_t(b)]);
  for (auto f : free_dims(ls.size(), d.lhs_batch, d.lhs_contract)) out.push_back(ls[std::size_t(f)]);
  for (auto f : free_dims(rs.size(), d.rhs_batch, d.rhs_contract)) out.push_back(rs[std::size_t(f)]);
  return {{t, out}};
}

std::int64_t size_of(const Shape& s, const Dims& dims) {
  std::int64_t n = 1;
  for (auto d : dims) n *= s[std::size_t(d)];
  return n;
}

// True when permuting s by `order` moves no element: the dims larger than 1 keep their order.
bool keeps_layout(const Shape& s, const Dims& order) {
  std::int64_t last = -1;
  for (auto d : order) {
    if (s[std::size_t(d)] == 1) continue;
    if (d < last) return false;
    last = d;
  }
  return true;
}

// An operand as gemm reads it: [batch, rows, cols], or [batch, cols, rows] read
// transposed. Only an operand in neither layout is copied.
struct GemmOperand {
  Tensor x;
  bool trans;
};
GemmOperand arrange(const Tensor& x, const Dims& batch, const Dims& rows, const Dims& cols) {
  Dims plain = batch, swapped = batch;
  plain.insert(plain.end(), rows.begin(), rows.end());
  plain.insert(plain.end(), cols.begin(), cols.end());
  swapped.insert(swapped.end(), cols.begin(), cols.end());
  swapped.insert(swapped.end(), rows.begin(), rows.end());
  if (keeps_layout(x.shape(), plain)) return {x, false};
  if (keeps_layout(x.shape(), swapped)) return {x, true};
  return {detail::permute_copy(x, plain), false};
}

template <class T>
void run_gemm(const detail::GemmShape& g, const Tensor& a, const Tensor& b, const Tensor& y) {
  if constexpr (std::is_same_v<T, bool>)
    fail<DTypeError>("dot_general", "no kernel for bool");
  else
    detail::gemm(g, a.data<T>(), b.data<T>(), detail::mutable_data<T>(y));
}

// The result's layout [batch, lhs free, rhs free] is exactly gemm's [batch, m, n].
std::vector<Tensor> dot_kernel(std::span<const Tensor> in, const Attrs& attrs,
                               std::span<const TensorType> out) {
  const DotDims d = read_dims(attrs);
  const Shape &ls = in[0].shape(), &rs = in[1].shape();
  const Dims lf = free_dims(ls.size(), d.lhs_batch, d.lhs_contract);
  const Dims rf = free_dims(rs.size(), d.rhs_batch, d.rhs_contract);
  const GemmOperand a = arrange(in[0], d.lhs_batch, lf, d.lhs_contract);
  const GemmOperand b = arrange(in[1], d.rhs_batch, d.rhs_contract, rf);
  // 16-bit floats compute in f32; mixed operands in their promoted type, widened to
  // the result's type when that is wider (i8 x i8 -> i32 accumulates in i32).
  const DType t = out[0].dtype, wide = promote_types(promote_types(in[0].dtype(), in[1].dtype()), t);
  const DType ct = is_half(wide) ? DType::f32 : wide;
  const Tensor av = a.x.astype(ct), bv = b.x.astype(ct);
  const detail::GemmShape g{size_of(ls, d.lhs_batch),    size_of(ls, lf), size_of(rs, rf),
                            size_of(ls, d.lhs_contract), a.trans,         b.trans};
  Tensor y = detail::empty(out[0].shape, ct);
  TLALOC_SWITCH_COMPUTE(ct, "dot_general", run_gemm<T>(g, av, bv, y))
  return {y.astype(t)};
}

// ---- derivatives (JAX's transposes of dot_general) ---------------------------------

// The cotangent of one operand x of dot_general, whose other operand is `other`:
// ct contracted with `other` over the other's free axes. ct's axes are [batch, lhs
// free, rhs free]. The product can be taken as (ct, other), giving [batch, x free,
// other's contracted axes], or as (other, ct), giving [batch, other's contracted
// axes, x free] (JAX's swap); the order that already has x's layout is chosen, so
// that the usual cases (the lhs [m, k] and the rhs [k, n] of a matmul) need no
// transpose copy; otherwise the product's axes are transposed into x's order.
Tensor dot_transpose(const Tensor& ct, const Tensor& x, const Tensor& other, const Dims& x_batch,
                     const Dims& x_contract, const Dims& o_batch, const Dims& o_contract, bool x_is_lhs) {
  const std::int64_t nb = std::int64_t(x_batch.size()), nc = std::int64_t(x_contract.size());
  const Dims x_free = free_dims(x.rank(), x_batch, x_contract), o_free = free_dims(other.rank(), o_batch, o_contract);
  const std::int64_t nxf = std::int64_t(x_free.size()), nof = std::int64_t(o_free.size());
  Dims ct_batch, ct_contract;
  for (std::int64_t i = 0; i < nb; ++i) ct_batch.push_back(i);
  const std::int64_t o_start = x_is_lhs ? nb + nxf : nb;  // where the other's free axes are in ct
  for (std::int64_t j = 0; j < nof; ++j) ct_contract.push_back(o_start + j);
  Dims sorted_oc = o_contract;
  std::sort(sorted_oc.begin(), sorted_oc.end());
  // perm[d]: the product's axis that becomes x's axis d, for either operand order.
  const auto perm_for = [&](bool ct_first) {
    Dims perm(std::size_t(x.rank()));
    const std::int64_t free_at = ct_first ? nb : nb + nc, contract_at = ct_first ? nb + nxf : nb;
    for (std::int64_t k = 0; k < nb; ++k) perm[std::size_t(x_batch[std::size_t(k)])] = k;
    for (std::int64_t j = 0; j < nxf; ++j) perm[std::size_t(x_free[std::size_t(j)])] = free_at + j;
    for (std::size_t m = 0; m < x_contract.size(); ++m) {
      const auto pos = std::find(sorted_oc.begin(), sorted_oc.end(), o_contract[m]) - sorted_oc.begin();
      perm[std::size_t(x_contract[m])] = contract_at + pos;
    }
    return perm;
  };
  const auto is_identity = [](const Dims& p) {
    for (std::size_t i = 0; i < p.size(); ++i)
      if (p[i] != std::int64_t(i)) return false;
    return true;
  };
  const Dims ct_first = perm_for(true), other_first = perm_for(false);
  if (!is_identity(ct_first) && is_identity(other_first))
    return dot_general(other, ct, DotDims{o_batch, ct_batch, o_free, ct_contract}).astype(x.dtype());
  const Tensor r = dot_general(ct, other, DotDims{ct_batch, o_batch, ct_contract, o_free});
  return (is_identity(ct_first) ? r : transpose(r, ct_first)).astype(x.dtype());
}

Tensor dot_general_share(const Tensor& g, const Tensor& a, const Tensor& b, const Attrs& attrs, int operand) {
  return derivatives::dot_general_backward(g, a, b, read_dims(attrs), operand);
}
extern const OpDef& dot_general_backward_op;

std::vector<Tensor> dot_vjp(const detail::Rule& r) {
  std::vector<Tensor> g(2);
  for (int k = 0; k < 2; ++k)
    if (r.wants(std::size_t(k)))
      g[std::size_t(k)] = detail::share_or_op(dot_general_backward_op, dot_general_share, r.cotangent(),
                                              r.in(0), r.in(1), r.attrs(), k);
  return g;
}

// The dimension numbers as the C++ argument: tl::DotDims{...}, or as written (a
// call tlaloc-grad records, "dimension_numbers").
std::string cpp_dot_dims(const Attrs& a) {
  if (const std::string* written = detail::cpp_written(a, "dimension_numbers")) return *written;
  return fmt::format(
      "tl::DotDims{{.lhs_batch = {}, .rhs_batch = {}, .lhs_contract = {}, .rhs_contract = {}}}",
      detail::cpp_ints(a.get<Dims>("lhs_batching_dimensions")),
      detail::cpp_ints(a.get<Dims>("rhs_batching_dimensions")),
      detail::cpp_ints(a.get<Dims>("lhs_contracting_dimensions")),
      detail::cpp_ints(a.get<Dims>("rhs_contracting_dimensions")));
}

std::vector<Tensor> dot_jvp(const detail::Rule& r) {
  Tensor t;
  if (r.has_tangent(0)) t = detail::call1(*r.op(), {r.tangent(0), r.in(1)}, r.attrs());
  if (r.has_tangent(1)) t = detail::add_tangents(t, detail::call1(*r.op(), {r.in(0), r.tangent(1)}, r.attrs()));
  return {t};
}

using Kind = detail::StableHloAttr::Kind;
const OpDef& dot_general_op =
    def_op("dot_general")
        .multilinear()
        // tlaloc-grad records tl::dot_general's dimension numbers as one written argument.
        .called_as({.names = {"dot_general"}, .attributes = {"dimension_numbers"}})
        .cpp([](detail::CppOp& op) {
          const detail::Attrs& a = op.attrs();
          const std::string dims = cpp_dot_dims(a);
          // A declared result element type (i8 x i8 -> i32) is tl::lax::dot_general's.
          if (a.has("preferred_element_type"))
            return detail::cpp_call("tl::lax::dot_general", op,
                                    {dims, detail::cpp_dtype(a.get<DType>("preferred_element_type"))});
          return detail::cpp_call("tl::dot_general", op, {dims});
        })
        .inputs(2)
        .shape_rule(dot_rule)
        .kernel(dot_kernel)
        .jvp(dot_jvp)
        .vjp(dot_vjp)
        .stablehlo(
            {"stablehlo.dot_general",
             {{"dot_dimension_numbers", Kind::dot_dimension_numbers},
              detail::StableHloAttr("precision_config", Kind::precision_list).optional(),
              detail::StableHloAttr("algorithm", Kind::dot_algorithm).optional(),
              detail::StableHloAttr("result_element_type", Kind::result_dtype).as("preferred_element_type")},
             "dot_general"});

// ---- matmul ---------------------------------------------------------------------

Dims normalized(const Dims& dims, std::int64_t rank) {
  Dims out = dims;
  for (auto& d : out)
    if (d < 0 && d >= -rank) d += rank;  // others stay for the shape rule to report
  return out;
}

Shape batch_of(const Tensor& x) { return Shape(x.shape().begin(), x.shape().end() - 2); }

Shape broadcast_batch(const Shape& a, const Shape& b, const Shape& ab, const Shape& bb) {
  const std::size_t r = std::max(ab.size(), bb.size());
  Shape out(r);
  for (std::size_t i = 0; i < r; ++i) {
    const std::int64_t x = i < r - ab.size() ? 1 : ab[i - (r - ab.size())];
    const std::int64_t y = i < r - bb.size() ? 1 : bb[i - (r - bb.size())];
    if (x != y && x != 1 && y != 1)
      fail<ShapeError>("matmul", "batch dimensions of {} and {} do not broadcast", shape_string(a),
                       shape_string(b));
    out[i] = x == 1 ? y : x;
  }
  return out;
}

// x ([..., r, c]) as [B, r, c] with its batch dims broadcast to `batch` (B entries):
// a view when x already has B batch entries (only leading 1s missing).
Tensor as_batch(const Tensor& x, const Shape& batch, std::int64_t nb) {
  const std::int64_t r = x.size(-2), c = x.size(-1);
  if (detail::numel_of(batch_of(x)) == nb) return reshape(x, {nb, r, c});
  Shape full = batch;
  full.push_back(r);
  full.push_back(c);
  return reshape(broadcast_to(x, full), {nb, r, c});
}

// [..., M, K] x [..., K, N] with batch dims broadcast to `batch`; the result has
// the elements of batch + [M, N].
Tensor batched_product(const Tensor& a, const Tensor& b, const Shape& batch) {
  const std::int64_t m = a.size(-2), k = a.size(-1), n = b.size(-1), nb = detail::numel_of(batch);
  if (detail::numel_of(batch_of(b)) == 1) {
    // One rhs for every batch entry: a single [B*M, K] x [K, N] product, nothing copied.
    return dot_general(reshape(a, {nb * m, k}), reshape(b, {k, n}), {{}, {}, {1}, {0}});
  }
  return dot_general(as_batch(a, batch, nb), as_batch(b, batch, nb), {{0}, {0}, {2}, {1}});
}

// matmul's batch and result shapes, checked: as NumPy, a 1-D lhs is a row [1, K] and
// a 1-D rhs a column [K, 1], and those dims are dropped from the result again.
struct MatmulShapes {
  Shape a2, b2, batch, result;
};
MatmulShapes matmul_shapes(const Shape& a, const Shape& b) {
  if (a.empty() || b.empty())
    fail<ShapeError>("matmul", "operands need at least one dimension, got shapes {} and {}", shape_string(a),
                     shape_string(b));
  MatmulShapes s;
  s.a2 = a.size() == 1 ? Shape{1, a[0]} : a;
  s.b2 = b.size() == 1 ? Shape{b[0], 1} : b;
  const std::int64_t k = s.a2.back(), kb = s.b2[s.b2.size() - 2];
  if (k != kb)
    fail<ShapeError>("matmul", "contracting dimensions differ: {} and {} ({} != {})", shape_string(a),
                     shape_string(b), k, kb);
  s.batch = s.result =
      broadcast_batch(a, b, Shape(s.a2.begin(), s.a2.end() - 2), Shape(s.b2.begin(), s.b2.end() - 2));
  if (a.size() > 1) s.result.push_back(s.a2[s.a2.size() - 2]);
  if (b.size() > 1) s.result.push_back(s.b2.back());
  return s;
}
DType matmul_dtype(DType a, DType b, const Shape& as, const Shape& bs) {
  const DType t = detail::promote_for("matmul", a, b);
  if (t == DType::boolean)
    fail<DTypeError>("matmul", "no kernel for {} x {} (shapes {} and {})", a, b, shape_string(as),
                     shape_string(bs));
  return t;
}

// matmul's operands as matrices (MatmulShapes), checked.
struct MatmulView {
  Tensor a2, b2;
  Shape batch, result;
};
MatmulView matmul_view(const Tensor& a, const Tensor& b) {
  const MatmulShapes s = matmul_shapes(a.shape(), b.shape());
  matmul_dtype(a.dtype(), b.dtype(), a.shape(), b.shape());
  return {a.rank() == 1 ? reshape(a, s.a2) : a, b.rank() == 1 ? reshape(b, s.b2) : b, s.batch, s.result};
}

Tensor matmul_share(const Tensor& g, const Tensor& a, const Tensor& b, const Attrs&, int operand) {
  return derivatives::matmul_backward(g, a, b, operand);
}
extern const OpDef& matmul_backward_op;

// matmul of values whose types are known at run time only (traced at build time,
// docs/ENGINE_AT_BUILD_TIME.md): one op, whose kernel and lowering are tl::matmul's
// own steps on the types then known. Where types are known tl::matmul records those
// steps. Its rules: the product rule, and matmul_backward for each operand's share.
const OpDef& matmul_op =
    def_op("matmul")
        .inputs(2)
        .multilinear()
        .called_as({.names = {"matmul"}, .attributes = {}})
        .shape_rule([](std::span<const TensorType> in, const Attrs&) {
          const Shape& a = in[0].shape;
          const Shape& b = in[1].shape;
          return std::vector<TensorType>{
              {matmul_dtype(in[0].dtype, in[1].dtype, a, b), matmul_shapes(a, b).result}};
        })
        .kernel([](std::span<const Tensor> in, const Attrs&, std::span<const TensorType>) {
          return std::vector<Tensor>{matmul(in[0], in[1])};
        })
        .lower([](std::span<const Tensor> in, const Attrs&) {
          return std::vector<Tensor>{matmul(in[0], in[1])};
        })
        .jvp([](const detail::Rule& r) {
          Tensor t;
          if (r.has_tangent(0)) t = matmul(r.tangent(0), r.in(1));
          if (r.has_tangent(1)) t = detail::add_tangents(t, matmul(r.in(0), r.tangent(1)));
          return std::vector<Tensor>{t};
        })
        .vjp([](const detail::Rule& r) {
          std::vector<Tensor> g(2);
          for (int k = 0; k < 2; ++k)
            if (r.wants(std::size_t(k)))
              g[std::size_t(k)] = detail::share_or_op(matmul_backward_op, matmul_share, r.cotangent(),
                                                      r.in(0), r.in(1), {}, k);
          return g;
        })
        .cpp([](detail::CppOp& op) { return detail::cpp_call("tl::matmul", op); });

Tensor matmul_product(const Tensor& a, const Tensor& b, const Attrs&) { return matmul(a, b); }
const OpDef& matmul_backward_op = detail::def_product_share("matmul_backward", matmul_share, matmul_product)
                                      .called_as({.names = {"matmul_backward"}, .attributes = {"operand"}})
                                      .cpp([](detail::CppOp& op) {
                                        return detail::cpp_call("tl::derivatives::matmul_backward", op,
                                                                {detail::cpp_attr(op.attrs(), "operand")});
                                      });

Tensor dot_general_product(const Tensor& a, const Tensor& b, const Attrs& attrs) {
  return call1(dot_general_op, {a, b}, attrs);
}
const OpDef& dot_general_backward_op =
    detail::def_product_share("dot_general_backward", dot_general_share, dot_general_product)
        .called_as({.names = {"dot_general_backward"}, .attributes = {"dimension_numbers", "operand"}})
        .cpp([](detail::CppOp& op) {
          return detail::cpp_call("tl::derivatives::dot_general_backward", op,
                                  {cpp_dot_dims(op.attrs()), detail::cpp_attr(op.attrs(), "operand")});
        });

}  // namespace

Tensor dot_general(const Tensor& a, const Tensor& b, const DotDims& dims) {
  return call1(dot_general_op, {a, b},
               {{"lhs_batching_dimensions", normalized(dims.lhs_batch, a.rank())},
                {"rhs_batching_dimensions", normalized(dims.rhs_batch, b.rank())},
                {"lhs_contracting_dimensions", normalized(dims.lhs_contract, a.rank())},
                {"rhs_contracting_dimensions", normalized(dims.rhs_contract, b.rank())}});
}

Tensor lax::dot_general(const Tensor& a, const Tensor& b, const DotDims& dims, DType preferred_element_type) {
  return call1(dot_general_op, {a, b},
               {{"lhs_batching_dimensions", dims.lhs_batch},
                {"rhs_batching_dimensions", dims.rhs_batch},
                {"lhs_contracting_dimensions", dims.lhs_contract},
                {"rhs_contracting_dimensions", dims.rhs_contract},
                {"preferred_element_type", preferred_element_type}});
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  if (detail::is_untyped(a) || detail::is_untyped(b)) return call1(matmul_op, {a, b});
  const MatmulView v = matmul_view(a, b);
  return reshape(batched_product(v.a2, v.b2, v.batch), v.result);
}

Tensor derivatives::dot_general_backward(const Tensor& g, const Tensor& a, const Tensor& b, const DotDims& dims,
                            int operand) {
  if (operand != 0 && operand != 1)
    fail<ValueError>("dot_general_backward", "operand is {}: 0 for a, 1 for b", operand);
  const std::size_t nb = dims.lhs_batch.size(), nc = dims.lhs_contract.size();
  const std::int64_t rank = std::int64_t(a.rank() + b.rank()) - std::int64_t(nb + 2 * nc);
  if (g.rank() != rank || dims.rhs_batch.size() != nb || dims.rhs_contract.size() != nc)
    fail<ShapeError>("dot_general_backward",
                     "g is {}, but dot_general of {} and {} over these dims has rank {}",
                     shape_string(g.shape()), shape_string(a.shape()), shape_string(b.shape()), rank);
  return operand == 0 ? dot_transpose(g, a, b, dims.lhs_batch, dims.lhs_contract, dims.rhs_batch,
                                      dims.rhs_contract, true)
                      : dot_transpose(g, b, a, dims.rhs_batch, dims.rhs_contract, dims.lhs_batch,
                                      dims.lhs_contract, false);
}

// matmul's steps undone last first, with the functions the engine's rules use for
// them: the result's reshape, the product (dot_transpose, dot_general's rule) and the
// operand's batch view (a reshape, or unbroadcast for a broadcast batch).
Tensor derivatives::matmul_backward(const Tensor& g, const Tensor& a, const Tensor& b, int operand) {
  if (operand != 0 && operand != 1)
    fail<ValueError>("matmul_backward", "operand is {}: 0 for a, 1 for b", operand);
  const MatmulView v = matmul_view(a, b);
  if (g.shape() != v.result)
    fail<ShapeError>("matmul_backward", "g is {}, but matmul of {} and {} is {}", shape_string(g.shape()),
                     shape_string(a.shape()), shape_string(b.shape()), shape_string(v.result));
  const Tensor &a2 = v.a2, &b2 = v.b2;
  const Shape& batch = v.batch;
  const std::int64_t m = a2.size(-2), k = a2.size(-1), n = b2.size(-1), nb = detail::numel_of(batch);
  const Tensor& x2 = operand == 0 ? a2 : b2;
  Tensor share;
  if (detail::numel_of(batch_of(b2)) == 1) {
    const Tensor lhs = reshape(a2, {nb * m, k}), rhs = reshape(b2, {k, n}), ct = reshape(g, {nb * m, n});
    share = operand == 0 ? dot_transpose(ct, lhs, rhs, {}, {1}, {}, {0}, true)
                         : dot_transpose(ct, rhs, lhs, {}, {0}, {}, {1}, false);
  } else {
    const Tensor lhs = as_batch(a2, batch, nb), rhs = as_batch(b2, batch, nb), ct = reshape(g, {nb, m, n});
    share = operand == 0 ? dot_transpose(ct, lhs, rhs, {0}, {2}, {0}, {1}, true)
                         : dot_transpose(ct, rhs, lhs, {0}, {1}, {0}, {2}, false);
    if (detail::numel_of(batch_of(x2)) != nb) {
      Shape full = batch;
      full.push_back(x2.size(-2));
      full.push_back(x2.size(-1));
      Dims dims(std::size_t(x2.rank()));
      for (std::size_t i = 0; i < dims.size(); ++i) dims[i] = std::int64_t(full.size() - dims.size() + i);
      share = detail::unbroadcast(reshape(share, full), x2.shape(), x2.dtype(), dims);
    }
  }
  return reshape(share, (operand == 0 ? a : b).shape());
}

}  // namespace tlaloc
