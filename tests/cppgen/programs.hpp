// The programs of the printed-gradient table: derivatives of the gradient-check
// rows (tests/ad/cases_*.cpp) and of control flow, custom rules and a fused chain,
// each with the arguments it runs on. The generator (print_programs.cpp) prints
// them at build time; the table test (table_main.cpp) runs the printed functions
// and the interpreter on the same arguments and compares the bits.
#pragma once

#include <string>
#include <vector>

#include "ir/ir.hpp"

namespace cppgen_table {

namespace tl = tlaloc;

struct Program {
  std::string name;  // "unary/tanh:vjp"; the C++ function is named after its index
  tl::ir::Function f;
  std::vector<tl::Tensor> args;
};

// Deterministic: the generator and the test build the same list.
std::vector<Program> programs();

}  // namespace cppgen_table
