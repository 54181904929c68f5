// Decompositions of the library's elementwise ops that StableHLO spells
// differently (comparisons, logical ops, Python's remainder, ...) into StableHLO
// ops. Each is an OpDef::lower function: it runs under a trace on symbolic inputs.
#pragma once

#include "ir/op.hpp"

namespace tlaloc::detail {

#define TLALOC_DECLARE_LOWERING(name) \
  std::vector<Tensor> lower_##name(std::span<const Tensor> in, const Attrs& a);
TLALOC_DECLARE_LOWERING(eq)
TLALOC_DECLARE_LOWERING(ne)
TLALOC_DECLARE_LOWERING(lt)
TLALOC_DECLARE_LOWERING(le)
TLALOC_DECLARE_LOWERING(gt)
TLALOC_DECLARE_LOWERING(ge)
TLALOC_DECLARE_LOWERING(logical_and)
TLALOC_DECLARE_LOWERING(logical_or)
TLALOC_DECLARE_LOWERING(logical_xor)
TLALOC_DECLARE_LOWERING(logical_not)
TLALOC_DECLARE_LOWERING(isnan)
TLALOC_DECLARE_LOWERING(div)
TLALOC_DECLARE_LOWERING(remainder)
TLALOC_DECLARE_LOWERING(square)
TLALOC_DECLARE_LOWERING(relu)
TLALOC_DECLARE_LOWERING(reciprocal)
TLALOC_DECLARE_LOWERING(sinh)
TLALOC_DECLARE_LOWERING(cosh)
TLALOC_DECLARE_LOWERING(asin)
TLALOC_DECLARE_LOWERING(acos)
TLALOC_DECLARE_LOWERING(atan)
TLALOC_DECLARE_LOWERING(asinh)
TLALOC_DECLARE_LOWERING(acosh)
TLALOC_DECLARE_LOWERING(atanh)
TLALOC_DECLARE_LOWERING(silu)
TLALOC_DECLARE_LOWERING(softplus)
TLALOC_DECLARE_LOWERING(gelu_tanh)
TLALOC_DECLARE_LOWERING(floor)
TLALOC_DECLARE_LOWERING(ceil)
TLALOC_DECLARE_LOWERING(round)
TLALOC_DECLARE_LOWERING(sign)
TLALOC_DECLARE_LOWERING(isfinite)
TLALOC_DECLARE_LOWERING(erf)
TLALOC_DECLARE_LOWERING(gelu)
#undef TLALOC_DECLARE_LOWERING

}  // namespace tlaloc::detail
