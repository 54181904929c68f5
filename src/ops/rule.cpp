#include "ops/rule.hpp"

#include "tlaloc/ops.hpp"

namespace tlaloc::detail {

bool differentiable(DType t) { return is_floating(t); }

Tensor add_tangents(const Tensor& a, const Tensor& b) {
  if (!a.defined()) return b;
  if (!b.defined()) return a;
  return add(a, b);
}

Tensor scale(const Tensor& t, const Tensor& factor) { return t.defined() ? mul(t, factor) : t; }

OpDef& OpDef::derivative(UnaryDerivative d) {
  partials_ = 1;
  return (*this)
      .jvp([d](const Rule& r) {
        std::vector<Tensor> t(1);
        if (r.has_tangent(0)) t[0] = broadcast_to_shape_of(mul(r.tangent(0), d(r.in(0), r.out(0))), r.out(0));
        return t;
      })
      .vjp([d](const Rule& r) {
        std::vector<Tensor> g(1);
        if (r.has_cotangent() && r.wants(0)) g[0] = sum_to_shape_of(mul(r.cotangent(), d(r.in(0), r.out(0))), r.in(0));
        return g;
      });
}

OpDef& binary_derivative(OpDef& op, Partial da, Partial db) {
  return op.partials(2)
      .jvp([da, db](const Rule& r) {
        const Tensor &a = r.in(0), &b = r.in(1), &y = r.out(0);
        Tensor t;
        if (r.has_tangent(0)) t = mul(r.tangent(0), da(a, b, y));
        if (r.has_tangent(1)) t = add_tangents(t, mul(r.tangent(1), db(a, b, y)));
        return std::vector<Tensor>{broadcast_to_shape_of(t, y)};
      })
      .vjp([da, db](const Rule& r) {
        const Tensor &a = r.in(0), &b = r.in(1), &y = r.out(0);
        std::vector<Tensor> g(2);
        if (!r.has_cotangent()) return g;
        if (r.wants(0)) g[0] = sum_to_shape_of(mul(r.cotangent(), da(a, b, y)), a);
        if (r.wants(1)) g[1] = sum_to_shape_of(mul(r.cotangent(), db(a, b, y)), b);
        return g;
      });
}

DerivRule linear_jvp(std::vector<std::size_t> linear_operands) {
  return [linear = std::move(linear_operands)](const Rule& r) {
    const OpDef* op = r.op();
    std::vector<Tensor> in(r.num_in());
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = r.in(i);
    bool any = false;
    for (std::size_t i : linear) {
      if (r.has_tangent(i)) {
        in[i] = r.tangent(i);
        any = true;
      } else {
        in[i] = zeros_like(r.in(i));
      }
    }
    if (!any) return std::vector<Tensor>(r.num_out());
    return call(*op, in, r.attrs());
  };
}

}  // namespace tlaloc::detail
