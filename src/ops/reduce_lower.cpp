#include "ops/reduce_lower.hpp"

#include <cstring>

#include "core/convert.hpp"
#include "core/dispatch_type.hpp"
#include "core/reduce_kernels.hpp"
#include "core/tensor_impl.hpp"
#include "ir/builder.hpp"
#include "ops/reduce_axes.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::detail {
namespace {

// The identity the eager kernels start from, so the lowered reduce gives the same bits.
Tensor identity(ReduceBody body, DType t) {
  // Complex values sum and multiply; they have no order for max and min.
  if (is_complex(t) && (body == ReduceBody::add || body == ReduceBody::mul))
    return full({}, body == ReduceBody::add ? 0 : 1, t);
  Tensor out = empty({}, t);
  TLALOC_SWITCH_ALL(t, "reduce", {
    using A = compute_t<T>;
    const A v = body == ReduceBody::add   ? SumOp<A>::init()
                : body == ReduceBody::mul ? ProdOp<A>::init()
                : body == ReduceBody::max ? MaxOp<A>::init()
                                          : MinOp<A>::init();
    *mutable_data<T>(out) = convert_value<T>(v);
  })
  return out;
}

const char* body_op(ReduceBody body) {
  switch (body) {
    case ReduceBody::add:
      return "add";
    case ReduceBody::mul:
      return "mul";
    case ReduceBody::max:
      return "maximum";
    default:
      return "minimum";
  }
}

}  // namespace

LowerFn lower_to_reduce(std::string op, ReduceBody body) {
  return [op = std::move(op), body](std::span<const Tensor> in, const Attrs& attrs) {
    ir::Builder* b = ir::current_builder();
    if (b == nullptr) fail(op, "is lowered only while tracing");
    const TensorType out = find_op(op)->infer(std::vector<TensorType>{type_of(in[0])}, attrs)[0];
    // 16-bit floats accumulate in f32 and round once, as the eager kernel does.
    const DType acc = is_half(out.dtype) ? DType::f32 : out.dtype;
    const Tensor x = in[0].dtype() == acc ? in[0] : in[0].astype(acc);
    const TensorType scalar{acc, {}};
    const TensorType scalars[] = {scalar, scalar};
    const OpDef& combine = *find_op(body_op(body));
    ir::Region region = b->region(scalars, [&](std::span<const Tensor> args) {
      return std::vector<Tensor>{call1(combine, {args[0], args[1]})};
    });
    const std::vector<std::int64_t> axes = reduced_axes(op, attrs, x.rank());
    Shape kept;
    for (std::size_t d = 0; d < x.shape().size(); ++d)
      if (std::find(axes.begin(), axes.end(), std::int64_t(d)) == axes.end()) kept.push_back(x.shape()[d]);
    const Tensor operands[] = {x, identity(body, acc)};
    std::vector<ir::Region> regions;
    regions.push_back(std::move(region));
    Tensor y =
        b->record(*find_op("reduce"), operands, {{"dimensions", axes}}, {{acc, kept}}, std::move(regions))[0];
    if (y.shape() != out.shape) y = reshape(y, out.shape);
    if (y.dtype() != out.dtype) y = y.astype(out.dtype);
    return std::vector<Tensor>{y};
  };
}

}  // namespace tlaloc::detail
