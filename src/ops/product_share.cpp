#include "ops/product_share.hpp"

#include <vector>

#include "core/tensor_impl.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/like.hpp"
#include "ops/rule.hpp"

namespace tlaloc::detail {
namespace {

// Which operand's share: a number, or (in a call tlaloc-grad read from a generated
// gradient) the literal 0 or 1 as written there.
std::size_t share_of(const Attrs& attrs) {
  if (const std::string* written = cpp_written(attrs, "operand")) {
    if (*written == "0" || *written == "1") return std::size_t(*written == "1");
    throw UnknownTypeError("the operand of a product's share is known at run time only: " + *written +
                           " (a literal 0 or 1 is read where types are unknown)");
  }
  return std::size_t(attrs.get<std::int64_t>("operand"));
}
// The place (in g, a, b) of the operand whose share it is not.
std::size_t other_of(std::size_t k) { return k == 0 ? 2 : 1; }
Attrs product_attrs(const Attrs& attrs) {
  Attrs out;
  for (const auto& [name, v] : attrs.items())
    if (name != "operand") out.set(name, v);
  return out;
}

}  // namespace

Tensor share_or_op(const OpDef& op, ShareFn share, const Tensor& g, const Tensor& a, const Tensor& b,
                   const Attrs& attrs, int operand) {
  if (!is_untyped(g) && !is_untyped(a) && !is_untyped(b) && !attrs.any_written())
    return share(g, a, b, attrs, operand);
  Attrs with = attrs;
  with.set("operand", std::int64_t{operand});
  return call1(op, {g, a, b}, with);
}

OpDef& def_product_share(std::string_view name, ShareFn share, ProductFn product) {
  const auto run = [share](std::span<const Tensor> in, const Attrs& attrs) {
    return std::vector<Tensor>{share(in[0], in[1], in[2], product_attrs(attrs), int(share_of(attrs)))};
  };
  return def_op(name)
      .inputs(3)
      .shape_rule([](std::span<const TensorType> in, const Attrs& attrs) {
        return std::vector<TensorType>{in[1 + share_of(attrs)]};
      })
      .kernel([run](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType>) {
        return run(in, attrs);
      })
      .lower(run)
      // The terms in the order of the engine's rule for the product the share
      // transposes, whose operands are (g, b) for a's share and (a, g) for b's.
      .jvp([](const Rule& r) {
        const std::size_t k = share_of(r.attrs()), other = other_of(k);
        const auto with = [&](std::size_t i) {
          std::vector<Tensor> in{r.in(0), r.in(1), r.in(2)};
          in[i] = r.tangent(i);
          return r.has_tangent(i) ? call1(*r.op(), in, r.attrs()) : Tensor();
        };
        return std::vector<Tensor>{k == 0 ? add_tangents(with(0), with(other))
                                          : add_tangents(with(other), with(0))};
      })
      // <c, share(g, a, b)> is <product(c, b), g> for a's share and <product(a, c), g>
      // for b's; as a function of the other operand, it is that operand's share of
      // the product with c in operand k's place.
      .vjp([share, product](const Rule& r) {
        const std::size_t k = share_of(r.attrs()), other = other_of(k);
        const Tensor& c = r.cotangent();
        const Attrs attrs = product_attrs(r.attrs());
        std::vector<Tensor> g(3);
        if (r.wants(0)) g[0] = k == 0 ? product(c, r.in(2), attrs) : product(r.in(1), c, attrs);
        if (r.wants(other)) {
          std::vector<Tensor> in{r.in(0), r.in(1), r.in(2)};
          in[1 + k] = c;
          g[other] = share_or_op(*r.op(), share, in[0], in[1], in[2], attrs, int(other - 1));
        }
        return g;
      });
}

}  // namespace tlaloc::detail
