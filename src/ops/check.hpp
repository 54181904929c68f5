// The check ops of StableHLO's conformance tests (`check.expect_eq`, ...), also
// reachable as `stablehlo.custom_call @check.expect_eq(...)`.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "ir/op.hpp"

namespace tlaloc::detail {

// A check op whose expectation does not hold; `tlaloc run` counts these.
class CheckFailure : public Error {
 public:
  using Error::Error;
};

// Runs the check called `name` ("check.expect_eq", ...) on host tensors; throws
// CheckFailure naming the first elements that differ. `expected` may be an
// attribute (the _const forms) or the second operand.
void run_check(std::string_view name, const Tensor& actual, const Tensor& expected, const Attrs& attrs);
bool is_check_name(std::string_view name);
// The shape rule of an op without results (the checks, interpreter.print).
std::vector<TensorType> no_results(std::span<const TensorType>, const Attrs&);

// Forgets the values interpreter.probe kept (src/ops/probe.cpp): `tlaloc run` calls it
// before each test function.
void clear_probes();

}  // namespace tlaloc::detail
