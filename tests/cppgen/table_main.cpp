// The printed-gradient table: every program of programs.hpp, printed as C++ at
// build time (print_programs.cpp) and compiled into this test, gives on the same
// arguments the same bits as the interpreter running the program.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstring>
#include <set>

#include "cppgen/printed.hpp"
#include "cppgen/programs.hpp"
#include "interp/interpreter.hpp"

namespace {

namespace tl = tlaloc;

struct Failed {
  const char* program;
  const char* why;
};
const Failed failed[] = {
#include "failed.inc"
    {nullptr, nullptr}};

bool same_bits(const tl::Tensor& a, const tl::Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  return std::memcmp(a.raw_data(), b.raw_data(), std::size_t(a.numel()) * tl::itemsize(a.dtype())) == 0;
}

// The ops that have no C++ spelling yet (docs/FOLLOWUPS.md). A program fails to
// print only by naming one of them, and each is still missing: when one gains a
// spelling, take it off this list.
const char* const not_yet_printed[] = {"convolution", "reduce_window", "scatter"};

TEST(CppgenTable, OnlyListedOpsFailToPrint) {
  std::set<std::string> seen;
  for (const Failed& f : failed) {
    if (f.program == nullptr) continue;
    bool listed = false;
    for (const char* op : not_yet_printed)
      if (std::string(f.why) == fmt::format("cppgen: op '{}' has no C++ spelling", op)) {
        listed = true;
        seen.insert(op);
      }
    EXPECT_TRUE(listed) << f.program << ": " << f.why;
  }
  for (const char* op : not_yet_printed) EXPECT_TRUE(seen.count(op)) << op << " prints now: take it off the list";
}

TEST(CppgenTable, PrintedEqualsInterpretedBitForBit) {
  const std::vector<cppgen_table::Program> programs = cppgen_table::programs();
  std::size_t compared = 0;
  for (const cppgen_table::Program& p : programs) {
    const auto it = cppgen_table::printed().find(p.name);
    if (it == cppgen_table::printed().end()) continue;  // reported by EveryProgramPrinted
    SCOPED_TRACE(p.name);
    const std::vector<tl::Tensor> want = tl::interp::Program(p.f).run(p.args);
    const std::vector<tl::Tensor> got = it->second(p.args);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i)
      EXPECT_TRUE(same_bits(got[i], want[i])) << "result " << i << "\nprinted:\n" << got[i] << "\ninterpreted:\n" << want[i];
    ++compared;
  }
  EXPECT_EQ(compared, cppgen_table::printed().size());
  EXPECT_GT(compared, 200u);
}

}  // namespace
