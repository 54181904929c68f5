// Every op of the registry has a C++ spelling (OpDef::cpp), so cppgen::print
// refuses no op by name; the printed-gradient table (table_main.cpp) checks that
// the spellings give the interpreter's bits.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/op.hpp"

namespace {

TEST(CppgenSpellings, EveryRegistryOpHasOne) {
  std::vector<std::string> missing;
  std::size_t library_ops = 0;
  for (const tlaloc::detail::OpDef* op : tlaloc::detail::all_ops()) {
    if (op->name().starts_with("test.")) continue;  // registered by tests (tests/ad/transforms_test.cpp)
    ++library_ops;
    if (!op->cpp_spelling()) missing.push_back(op->name());
  }
  EXPECT_EQ(missing, std::vector<std::string>{});
  EXPECT_GT(library_ops, 120u);
}

}  // namespace
