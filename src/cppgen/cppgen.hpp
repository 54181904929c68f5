// The C++ source printer: an IR function as a C++ function over the public API
// (docs/READABLE_REVERSE.md). One statement per op, each op written by its own
// spelling (OpDef::cpp, beside its def_op), named values, a comment giving the IR
// op; if/while/scan become C++ if/while/for. The printed function runs the ops'
// own kernels in the interpreter's order, so on the same inputs it gives the same
// bits as the interpreted program.
#pragma once

#include <string>
#include <string_view>
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

// Every function of a module: the entry (Module::entry(entry)) under options.name,
// the others under detail::cpp_function_name (fn_ and the IR name), which is what
// `call` and `composite` print. Declarations come first, so each function may call
// any other. (A function with calls printed on its own names functions it does not
// define.)
std::string print(const ir::Module& m, std::string_view entry, const PrintOptions& options = {});

// The #include lines and namespace alias printed functions need.
std::string prelude();

}  // namespace tlaloc::cppgen
