// Every split of every conformance file (tests/stablehlo/*.mlir) read back from
// Tlaloc's own output: the pretty form is a fixed point, the generic form reads
// back to the same pretty text, and the re-read module still passes its checks.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "interp/interpreter.hpp"
#include "stablehlo/stablehlo.hpp"
#include "tlaloc/tlaloc.hpp"

namespace tl = tlaloc;
namespace sh = tlaloc::stablehlo;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> conformance_files() {
  std::vector<std::string> files;
  for (const fs::directory_entry& e : fs::directory_iterator(TLALOC_STABLEHLO_TESTS_DIR))
    if (e.path().extension() == ".mlir") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs every public function without parameters: their check ops throw on a mismatch.
void run_checks(const tl::ir::Module& m) {
  for (const tl::ir::Function& f : m.functions) {
    if (!f.is_public || !f.body.args.empty()) continue;
    SCOPED_TRACE("@" + f.name);
    try {
      const tl::interp::Program prog(m, f.name);
      (void)prog.run(std::vector<tl::Tensor>{});
    } catch (const std::exception& e) {
      ADD_FAILURE() << "after the round trip: " << e.what();
    }
  }
}

// The three properties for one split; any error text names the split.
void check_split(const std::string& file, const sh::Split& piece) {
  const tl::ir::Module original = sh::parse(piece.text, file, piece.first_line);
  const std::string pretty = sh::emit(original);
  const tl::ir::Module reread = sh::parse(pretty, file + " (pretty emission)");
  EXPECT_EQ(sh::emit(reread), pretty) << "the pretty form is not a fixed point";

  const std::string generic = sh::emit(original, {.generic = true, .module_name = {}});
  const tl::ir::Module from_generic = sh::parse(generic, file + " (generic emission)");
  EXPECT_EQ(sh::emit(from_generic), pretty) << "the generic form reads back differently";

  run_checks(reread);
}

class RoundTrip : public testing::TestWithParam<std::string> {};

TEST_P(RoundTrip, EverySplit) {
  const std::string& file = GetParam();
  const std::string text = read_file(file);
  ASSERT_FALSE(text.empty()) << "cannot read " << file;
  for (const sh::Split& piece : sh::split_input(text)) {
    SCOPED_TRACE(fmt::format("{}:{} (the split's first line)", file, piece.first_line));
    try {
      check_split(file, piece);
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
    }
  }
}

std::string file_stem(const testing::TestParamInfo<std::string>& info) {
  std::string name = fs::path(info.param).stem().string();
  std::replace_if(
      name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(Conformance, RoundTrip, testing::ValuesIn(conformance_files()), file_stem);

}  // namespace
