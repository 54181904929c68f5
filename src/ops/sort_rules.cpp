// Derivatives of StableHLO sort: the results are the operands permuted along
// `dimension`, so tangents take the same permutation (take_along_axis) and
// cotangents the inverse one.
//
// The rule cannot call the op's comparator (it sees only Rule::body, not the
// region), so it recovers the permutation from the values instead: it sorts the
// operands' tuples and the results' tuples along the dimension by one canonical
// order of its own (lexicographic, floats in TOTALORDER, the position as the last
// key). The results are a permutation of the operands, so both sorted lists are
// the same tuples in the same order: position j pairs operand perm_in[j] with
// result perm_out[j]. Among elements whose tuples are identical (the comparator
// cannot tell them apart) this pairs them in their original order, as the stable
// sort does. Only what is not visible in the values is lost: a comparator that
// orders identical tuples, which a strict weak order cannot.
//
// Two more sorts (of integer keys) invert the permutations. The values enter the
// canonical sorts through stop_gradient: the permutation is piecewise constant.
#include <fmt/format.h>

#include "ops/region_rules.hpp"
#include "tlaloc/ops.hpp"
#include "tlaloc/transforms.hpp"

namespace tlaloc::detail {
namespace {

// A compare of two scalars; floats in the total order (-0 < +0, NaNs ordered).
Tensor compare(const Tensor& a, const Tensor& b, const char* direction) {
  static const OpDef& op = *find_op("compare");
  Attrs attrs{{"comparison_direction", std::string(direction)}};
  if (is_floating(a.dtype())) attrs.set("compare_type", std::string("TOTALORDER"));
  return call1(op, {a, b}, attrs);
}

Attrs sort_attrs(std::int64_t dim) { return {{"dimension", dim}, {"is_stable", true}}; }

// The positions along dim of the tuples of `values` in the canonical order.
Tensor canonical_order(std::span<const Tensor> values, std::int64_t dim) {
  std::vector<Tensor> in;
  std::vector<TensorType> args;
  for (const Tensor& v : values) {
    in.push_back(stop_gradient(v));
    args.insert(args.end(), 2, TensorType{v.dtype(), {}});
  }
  in.push_back(iota(values[0].shape(), dim, DType::i64));
  args.insert(args.end(), 2, TensorType{DType::i64, {}});
  const auto lexicographic = [](std::span<const Tensor> s) {
    const std::size_t n = s.size() / 2;
    Tensor less = compare(s[2 * n - 2], s[2 * n - 1], "LT");
    for (std::size_t k = n - 1; k-- > 0;)
      less = compare(s[2 * k], s[2 * k + 1], "LT") | (compare(s[2 * k], s[2 * k + 1], "EQ") & less);
    return std::vector<Tensor>{less};
  };
  return record_with_region("sort", in, sort_attrs(dim), args, lexicographic).back();
}

// values permuted so that keys (a permutation of the positions) become ascending.
Tensor sorted_by(const Tensor& keys, const Tensor& values, std::int64_t dim) {
  const Tensor in[] = {keys, values};
  const TensorType args[4] = {{DType::i64, {}}, {DType::i64, {}}, {DType::i64, {}}, {DType::i64, {}}};
  return record_with_region("sort", in, sort_attrs(dim), args, [](std::span<const Tensor> s) {
           return std::vector<Tensor>{compare(s[0], s[1], "LT")};
         })[1];
}

struct Permutation {
  std::int64_t dim = 0;
  Tensor from, to;  // along dim: result k is operand from[k]; operand i is result to[i]
};
Permutation permutation(const Rule& r, bool want_from) {
  Permutation p;
  p.dim = r.attr<std::int64_t>("dimension");
  if (p.dim < 0) p.dim += r.in(0).rank();
  std::vector<Tensor> in, out;
  for (std::size_t i = 0; i < r.num_in(); ++i) in.push_back(r.in(i));
  for (std::size_t i = 0; i < r.num_out(); ++i) out.push_back(r.out(i));
  const Tensor perm_in = canonical_order(in, p.dim), perm_out = canonical_order(out, p.dim);
  if (want_from)
    p.from = sorted_by(perm_out, perm_in, p.dim);
  else
    p.to = sorted_by(perm_in, perm_out, p.dim);
  return p;
}

}  // namespace

std::vector<Tensor> sort_jvp(const Rule& r) {
  std::vector<Tensor> t(r.num_out());
  if (r.in(0).numel() == 0) {
    for (std::size_t i = 0; i < t.size(); ++i) t[i] = r.tangent(i);
    return t;
  }
  const Permutation p = permutation(r, true);
  for (std::size_t i = 0; i < t.size(); ++i)
    if (r.has_tangent(i)) t[i] = take_along_axis(r.tangent(i), p.from, p.dim);
  return t;
}

std::vector<Tensor> sort_vjp(const Rule& r) {
  std::vector<Tensor> g(r.num_in());
  bool any = false;
  for (std::size_t i = 0; i < g.size(); ++i) any = any || (r.wants(i) && r.has_cotangent(i));
  if (!any) return g;
  if (r.in(0).numel() == 0) {
    for (std::size_t i = 0; i < g.size(); ++i)
      if (r.wants(i)) g[i] = r.cotangent(i);
    return g;
  }
  const Permutation p = permutation(r, false);
  for (std::size_t i = 0; i < g.size(); ++i)
    if (r.wants(i) && r.has_cotangent(i)) g[i] = take_along_axis(r.cotangent(i), p.to, p.dim);
  return g;
}

}  // namespace tlaloc::detail
