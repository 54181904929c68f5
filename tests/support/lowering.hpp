// Shared by the lowering tests: trace a C++ function, lower and emit it as
// StableHLO (pretty and generic), check that each text reads back to itself, and
// compare what the interpreter computes from the text with the eager result.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "interp/interpreter.hpp"
#include "ir/builder.hpp"
#include "stablehlo/stablehlo.hpp"
#include "tlaloc/tlaloc.hpp"

namespace tltest {

using Fn = std::function<std::vector<tlaloc::Tensor>(std::span<const tlaloc::Tensor>)>;

inline bool same_bits(const tlaloc::Tensor& a, const tlaloc::Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  const std::size_t n = std::size_t(a.numel()) * tlaloc::itemsize(a.dtype());
  return n == 0 || std::memcmp(a.raw_data(), b.raw_data(), n) == 0;
}

// The interpreted results of the pretty and the generic text (in that order);
// `pretty` receives the pretty text when given.
inline std::vector<std::vector<tlaloc::Tensor>> lowered_results(const Fn& fn,
                                                                const std::vector<tlaloc::Tensor>& args,
                                                                std::string* pretty = nullptr) {
  std::vector<tlaloc::ir::TensorType> types;
  for (const tlaloc::Tensor& a : args) types.push_back({a.dtype(), a.shape()});
  const tlaloc::ir::Function f = tlaloc::ir::trace("main", types, fn);
  std::vector<std::vector<tlaloc::Tensor>> out;
  for (bool generic : {false, true}) {
    tlaloc::stablehlo::EmitOptions options;
    options.generic = generic;
    const std::string text = tlaloc::stablehlo::to_text(f, options);
    SCOPED_TRACE(text);
    if (!generic && pretty != nullptr) *pretty = text;
    const tlaloc::ir::Module m = tlaloc::stablehlo::parse(text);
    EXPECT_EQ(tlaloc::stablehlo::emit(m, options), text);
    out.push_back(tlaloc::interp::run(m, args));
  }
  return out;
}

// The lowered program gives fn's eager results bit for bit; when `expect_op` is
// given, the pretty text must contain it (so the lowering, not a folded constant,
// is what ran).
inline void expect_round_trip(const Fn& fn, const std::vector<tlaloc::Tensor>& args,
                              const std::string& expect_op = {}) {
  const std::vector<tlaloc::Tensor> want = fn(args);
  std::string pretty;
  for (const std::vector<tlaloc::Tensor>& got : lowered_results(fn, args, &pretty)) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(same_bits(got[i], want[i])) << "result " << i;
  }
  if (!expect_op.empty()) {
    EXPECT_NE(pretty.find(expect_op), std::string::npos) << pretty;
  }
}

}  // namespace tltest
