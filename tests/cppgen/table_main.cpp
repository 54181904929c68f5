// The printed-gradient table: every program of programs.hpp, printed as C++ at
// build time (print_programs.cpp) and compiled into this test, gives on the same
// arguments the same bits as the interpreter running the program. The StableHLO
// conformance cases (tests/stablehlo/*.mlir), printed as well, pass their own
// check ops.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

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

bool is_conformance_case(const std::string& name) { return name.rfind("stablehlo/", 0) == 0; }

bool same_bits(const tl::Tensor& a, const tl::Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  return std::memcmp(a.raw_data(), b.raw_data(), std::size_t(a.numel()) * tl::itemsize(a.dtype())) == 0;
}

// The ops that have no C++ spelling yet (docs/READABLE_REVERSE.md). A program
// fails to print only by naming one of them, and each is still missing: when one
// gains a spelling, take it off this list. Every op the table meets prints.
const std::vector<std::string> not_yet_printed = {};

// The programs that run several processes (interpreter.run_parallel, the collectives,
// shard_map, docs/DISTRIBUTED.md), by the start of their names: conformance files and
// rows of the gradient table. A printed function runs as one process, so they are
// refused by name, and only so.
const std::vector<std::string> several_processes = {
    "stablehlo/collectives.mlir:", "stablehlo/send_recv.mlir:", "stablehlo/spmd.mlir:", "collective/"};

bool runs_several_processes(const std::string& program) {
  for (const std::string& start : several_processes)
    if (program.rfind(start, 0) == 0) return true;
  return false;
}

TEST(CppgenTable, OnlyListedOpsFailToPrint) {
  std::set<std::string> seen;
  for (const Failed& f : failed) {
    if (f.program == nullptr) continue;
    bool listed = false;
    for (const std::string& op : not_yet_printed)
      if (std::string(f.why) == fmt::format("cppgen: op '{}' has no C++ spelling", op)) {
        listed = true;
        seen.insert(op);
      }
    for (const std::string& file : several_processes)
      if (std::string(f.program).rfind(file, 0) == 0 &&
          std::string(f.why).find("has no C++ spelling: a printed function runs as one process") !=
              std::string::npos) {
        listed = true;
        seen.insert(file);
      }
    EXPECT_TRUE(listed) << f.program << ": " << f.why;
  }
  for (const std::string& op : not_yet_printed)
    EXPECT_TRUE(seen.count(op)) << op << " prints now: take it off the list";
  for (const std::string& file : several_processes)
    EXPECT_TRUE(seen.count(file)) << file << " prints now: take it off the list";
}

TEST(CppgenTable, PrintedEqualsInterpretedBitForBit) {
  const std::vector<cppgen_table::Program> programs = cppgen_table::programs();
  std::size_t compared = 0;
  for (const cppgen_table::Program& p : programs) {
    const auto it = cppgen_table::printed().find(p.name);
    if (it == cppgen_table::printed().end()) continue;  // reported by EveryProgramPrinted
    SCOPED_TRACE(p.name);
    const std::vector<tl::Tensor> want = tl::interp::Program(p.f).run(p.args);
    std::vector<tl::Tensor> got;
    try {
      got = it->second(p.args);
    } catch (const std::exception& e) {
      ADD_FAILURE() << p.name << ": the printed function throws: " << e.what();
      continue;
    }
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i)
      EXPECT_TRUE(same_bits(got[i], want[i])) << "result " << i << "\nprinted:\n" << got[i] << "\ninterpreted:\n" << want[i];
    ++compared;
  }
  std::size_t cases = 0;
  for (const auto& [name, fn] : cppgen_table::printed()) cases += is_conformance_case(name);
  EXPECT_EQ(compared + cases, cppgen_table::printed().size());
  // With nothing on not_yet_printed, every program of the table prints but those of
  // several processes.
  if (not_yet_printed.empty()) {
    std::size_t printable = 0;
    for (const cppgen_table::Program& p : programs) printable += !runs_several_processes(p.name);
    EXPECT_EQ(compared, printable);
  }
  EXPECT_GT(compared, 200u);
}

// Every conformance case prints (OnlyListedOpsFailToPrint) and, run as C++, passes
// the checks its module makes: exact ones (expect_eq) and within tolerances.
TEST(CppgenTable, PrintedConformanceCasesPassTheirChecks) {
  std::size_t ran = 0;
  for (const auto& [name, fn] : cppgen_table::printed()) {
    if (!is_conformance_case(name)) continue;
    try {
      fn({});
    } catch (const std::exception& e) {
      ADD_FAILURE() << name << ": " << e.what();
    }
    ++ran;
  }
  EXPECT_GT(ran, 100u);
}

}  // namespace
