// StableHLO text out and in (the exchange format with JAX, XLA and PJRT plugins).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ir/ir.hpp"
#include "stablehlo/cursor.hpp"

namespace tlaloc::stablehlo {

struct EmitOptions {
  bool generic = false;     // MLIR's generic syntax (what mlir-opt reads without the dialect)
  std::string module_name;  // `module @name`; none when empty
};

// Rewrites every op into StableHLO-level ops: composites by their decomposition,
// elementwise ops with the broadcasts and converts StableHLO needs.
ir::Module lower(const ir::Module& m);
// Prints a module of StableHLO-level ops (refuses, by name, any other op).
std::string emit(const ir::Module& m, const EmitOptions& options = {});
// lower + emit.
std::string to_text(const ir::Module& m, const EmitOptions& options = {});
std::string to_text(const ir::Function& f, const EmitOptions& options = {});

struct ParseOptions {
  // Dense constants of one module may hold this many bytes in all: a splat such as
  // dense<0.0> : tensor<100000x100000xf32> is refused by name, not allocated.
  std::size_t max_constant_bytes = std::size_t(1) << 32;
};

// Parses one module (pretty or generic syntax, or a mix), then verifies it.
// `first_line` numbers the lines of a split of a larger file.
ir::Module parse(std::string_view text, const std::string& file = "<input>", int first_line = 1,
                 const ParseOptions& options = {});

// Argument values written as StableHLO attributes, `[dense<1> : tensor<2xi32>, ...]`
// (what `tlaloc run --args` takes, as the reference interpreter's --args does).
std::vector<Tensor> parse_arguments(std::string_view text);
// A host value as StableHLO writes it: `dense<[3, 3]> : tensor<2xi32>`.
std::string value_text(const Tensor& t);

// The pieces of a file separated by `// -----` lines, each with its first line.
struct Split {
  std::string_view text;
  int first_line;
};
std::vector<Split> split_input(std::string_view text);

}  // namespace tlaloc::stablehlo
