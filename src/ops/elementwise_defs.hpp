// Declaring elementwise ops that are StableHLO ops: kernels over promoted,
// broadcast operands with the spelling attached, and calls of ops by name for
// lowerings written in another file than the op they use.
#pragma once

#include <initializer_list>
#include <string_view>

#include "core/elementwise.hpp"
#include "ops/elementwise_rules.hpp"

namespace tlaloc::detail {

// A StableHLO elementwise spelling without attributes.
inline StableHloSpelling elementwise_spelling(const char* name) { return {name, {}, "elementwise"}; }
// One the spec defines on floating-point operands only.
inline StableHloSpelling floating_spelling(const char* name) { return {name, {}, "elementwise", true}; }
// A chlo op on tensors of one shape (`chlo.lgamma %x : t -> t`; OpDef::chlo).
inline StableHloSpelling chlo_spelling(const char* name) { return {name, {}, "chlo"}; }

// f(x, y) on the operands promoted to their common type; the result has the
// rule's dtype (that type, or bool). `allowed(dtype)` refuses other types by name.
template <class F>
OpDef& def_spec_binary(const char* name, const char* spelling, ResultType rule, bool (*allowed)(DType), F f) {
  return def_op(name)
      .inputs(2)
      .elementwise()
      .stablehlo(elementwise_spelling(spelling))
      .shape_rule([name, allowed, base = broadcast_rule(name, rule)](std::span<const TensorType> in,
                                                                           const Attrs& a) {
        const DType t = promote_types(in[0].dtype, in[1].dtype);
        if (!allowed(t))
          fail<DTypeError>(name, "does not accept {} operands ({}, {})", t, in[0].dtype, in[1].dtype);
        return base(in, a);
      })
      .kernel([name, f](std::span<const Tensor> in, const Attrs&, std::span<const TensorType> out) {
        const DType t = promote_types(in[0].dtype(), in[1].dtype());
        const Tensor a = in[0].astype(t), b = in[1].astype(t);
        Tensor y = empty(out[0].shape, out[0].dtype);
        TLALOC_SWITCH_FOR(F, t, name, {
          if (out[0].dtype == DType::boolean && t != DType::boolean)
            binary_loop<bool, T>(a, b, y, f);
          else
            binary_loop<T, T>(a, b, y, f);
        })
        return std::vector<Tensor>{y};
      });
}

// f(x) keeping x's type; `allowed(dtype)` refuses other types by name.
template <class F>
OpDef& def_spec_unary(const char* name, const char* spelling, bool (*allowed)(DType), F f) {
  return def_op(name)
      .inputs(1)
      .elementwise()
      .stablehlo(elementwise_spelling(spelling))
      .shape_rule([name, allowed](std::span<const TensorType> in, const Attrs&) {
        if (!allowed(in[0].dtype)) fail<DTypeError>(name, "does not accept {} operands", in[0].dtype);
        return std::vector<TensorType>{in[0]};
      })
      .kernel([name, f](std::span<const Tensor> in, const Attrs&, std::span<const TensorType>) {
        return std::vector<Tensor>{map_same(name, in[0], f)};
      });
}

inline bool any_type(DType) { return true; }
inline bool integer_type(DType t) { return is_integral(t); }
inline bool integer_or_bool(DType t) { return is_integral(t) || t == DType::boolean; }
inline bool floating_type(DType t) { return is_floating(t); }
inline bool inexact_type(DType t) { return is_inexact(t); }
inline bool numeric_type(DType t) { return t != DType::boolean; }

// Calls a registered op by name (an op of another file); under a trace it is recorded.
Tensor call_op(std::string_view name, std::initializer_list<Tensor> in, const Attrs& attrs = {});

}  // namespace tlaloc::detail
