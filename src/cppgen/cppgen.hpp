// The C++ source printer: an IR function as a C++ function over the public API
// (docs/READABLE_REVERSE.md). One statement per op, each op written by its own
// spelling (OpDef::cpp, beside its def_op), named values, a comment giving the IR
// op; if/while/scan become C++ if/while/for. The printed function runs the ops'
// own kernels in the interpreter's order, so on the same inputs it gives the same
// bits as the interpreted program.
#pragma once

#include <string>
#include <vector>

#include "ir/ir.hpp"

namespace tlaloc::cppgen {

struct PrintOptions {
  std::string name = "f";                     // the C++ function's name
  std::vector<std::string> param_names = {};  // default x0, x1, ...
  // Lines written as `// ...` comments above the function.
  std::vector<std::string> comment = {};
  // Prepend the #include and the `namespace tl = tlaloc;` the text needs to
  // compile on its own.
  bool standalone = false;
};

// The function as C++ text. It returns a tl::Tensor when f has one result, else a
// std::vector<tl::Tensor>. Throws tlaloc::Error naming an op that has no spelling.
std::string print(const ir::Function& f, const PrintOptions& options = {});

// The #include lines and namespace alias printed functions need.
std::string prelude();

}  // namespace tlaloc::cppgen
