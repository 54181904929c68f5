// An optional capability of a RegionCalls (the interpreter has it): a look at the
// one op a region consists of, for kernels that pick a fast path from more than
// `binary_body` tells. Kernels find it with dynamic_cast and fall back without it.
#pragma once

#include <string_view>

#include "ops/op.hpp"

namespace tlaloc::detail {

class RegionQuery {
 public:
  virtual ~RegionQuery() = default;
  // The op a region applies to its first two arguments and returns, when that is
  // all it does (a sort comparator `compare LT` of the first pair among 2N
  // arguments), with its attributes; an empty name otherwise.
  struct PairOp {
    std::string_view name;
    const Attrs* attrs = nullptr;
  };
  virtual PairOp first_pair_op(std::size_t region) const = 0;
};

}  // namespace tlaloc::detail
