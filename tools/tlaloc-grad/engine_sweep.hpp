// The reverse sweep of a generated gradient written by the AD engine itself: the
// body lowered to IR of unknown types, the engine's vjp taken of it (src/ad/vjp.cpp)
// and its ops written back over the generated function's names.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cppgen/code.hpp"
#include "program.hpp"

namespace tlaloc_grad {

struct Sweep {
  code::Block body;  // statements, after the forward pass
  // The differentiated parameters' cotangents (empty for a list, d_<list>)
  std::vector<std::string> cotangents;
  std::string not_taken;  // what the lowering does not take yet, if anything
  Loc where{};            // and where, if known
  // An op's rule refused the derivative (tl::NotDifferentiableError, by name).
  bool refused_by_rule = false;
};

// What the sweep reads of the forward pass the tool wrote (emit_forward.cpp).
struct ForwardPass {
  std::function<std::string(const Loc&)> at;  // "line 12", for comments
  // The statements naming what iteration k of a loop saved (k: a variable's name).
  std::function<code::Block(const Node&, const std::string&)> restore;
  // A branch path's scalar statements, written again where its reverse reads them.
  std::function<code::Block(const Block&)> scalars;
};

// The sweep from `seed`, the result's cotangent (C++ text), each op's shares under a
// comment naming the op and its line; or, in not_taken, what in the body this
// lowering does not take (the tool refuses it, UNSUPPORTED_CONSTRUCT): a C++ loop
// whose sums its reverse loop would order otherwise than the unrolled trace (two
// carried values ending an iteration as one value, one passing on another's start), a
// value maybe without one where an op reads it, a rule that reads a type. No test
// program, random ones included, reaches one of these.
Sweep engine_sweep(const Program& p, const std::string& seed, const ForwardPass& forward);

}  // namespace tlaloc_grad
