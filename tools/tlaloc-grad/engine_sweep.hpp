// The reverse sweep of a generated gradient written by the AD engine itself: the
// body lowered to IR of unknown types, the engine's vjp taken of it (src/ad/vjp.cpp)
// and its ops written back over the generated function's names.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "program.hpp"

namespace tlaloc_grad {

struct Sweep {
  std::vector<std::string> lines;  // statements, after the forward pass
  // The differentiated parameters' cotangents (empty for a list, d_<list>)
  std::vector<std::string> cotangents;
  std::string not_taken;  // what the lowering does not take yet, if anything
};

// The sweep from `seed`, the result's cotangent (C++ text), each op's shares under a
// comment `comment` writes for the op's node; or, in not_taken, what in the body this
// lowering does not take yet: branches, loops, lists, custom rules, an op other than
// the elementwise ones and sum, max and min over axes written as literals, a rule
// that reads a type. The tool's own sweep (emit_reverse.cpp) writes those.
Sweep engine_sweep(const Program& p, const std::string& seed,
                   const std::function<std::string(const Node&)>& comment);

}  // namespace tlaloc_grad
