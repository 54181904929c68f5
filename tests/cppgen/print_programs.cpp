// Prints the table's programs (programs.hpp) as C++ at build time: kShards files
// of printed functions, each registering them by program name, and a list of the
// programs whose printing failed (none are expected; the table test reports them).
// Also prints the StableHLO conformance cases (tests/stablehlo/*.mlir, given after
// OUTDIR): each public function without parameters of each module, with the
// module's other functions, registered as "stablehlo/FILE:LINE@NAME"; they run
// their own check ops.
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cppgen/cppgen.hpp"
#include "cppgen/programs.hpp"
#include "stablehlo/stablehlo.hpp"

namespace {

constexpr std::size_t kShards = 8;

void write(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  if (!f) throw std::runtime_error("cannot write " + path);
}

std::string read(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::stringstream text;
  text << f.rdbuf();
  return text.str();
}

// A failure as a row of failed.inc: {"program", "why"}, escaped for C++.
std::string failure(const std::string& program, const std::string& why) {
  std::string w;
  for (char c : why)
    w += c == '"' || c == '\\' ? std::string("\\") + c : c == '\n' ? std::string(" ") : std::string(1, c);
  return fmt::format("    {{\"{}\", \"{}\"}},\n", program, w);
}

struct Shards {
  std::vector<std::string> body = std::vector<std::string>(kShards),
                           table = std::vector<std::string>(kShards);
  std::string failed;
  std::size_t next = 0;
};

// Each conformance case of one .mlir file, in a namespace of its own (modules
// reuse function names).
void print_conformance(const std::string& path, Shards& out) {
  const std::string text = read(path), file = std::filesystem::path(path).filename().string();
  for (const tlaloc::stablehlo::Split& piece : tlaloc::stablehlo::split_input(text)) {
    const tlaloc::ir::Module m = tlaloc::stablehlo::parse(piece.text, file, piece.first_line);
    for (const tlaloc::ir::Function& f : m.functions) {
      if (!f.is_public || !f.body.args.empty()) continue;
      const std::string name = fmt::format("stablehlo/{}:{}@{}", file, piece.first_line, f.name);
      const std::size_t i = out.next++;
      std::string printed;
      try {
        printed = tlaloc::cppgen::print(m, f.name, {.name = fmt::format("p{}", i), .comment = {name}});
      } catch (const std::exception& e) {
        out.failed += failure(name, e.what());
        continue;
      }
      out.body[i % kShards] += fmt::format("namespace m{} {{\n\n{}\n}}  // namespace m{}\n\n", i, printed, i);
      out.table[i % kShards] += fmt::format(
          "    {{\"{}\", [](std::span<const tl::Tensor>) {{ return cppgen_table::as_vector(m{}::p{}()); "
          "}}}},\n",
          name, i, i);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: tlaloc_cppgen_print OUTDIR [FILE.mlir...]\n";
    return 2;
  }
  const std::string dir = argv[1];
  Shards out;
  const std::vector<cppgen_table::Program> programs = cppgen_table::programs();
  for (const cppgen_table::Program& p : programs) {
    const std::size_t i = out.next++;
    const std::string name = fmt::format("p{}", i);
    std::string text;
    try {
      text = tlaloc::cppgen::print(p.f, {.name = name, .comment = {p.name}});
    } catch (const std::exception& e) {
      out.failed += failure(p.name, e.what());
      continue;
    }
    const std::size_t k = i % kShards;
    out.body[k] += text + "\n";
    std::vector<std::string> args;
    for (std::size_t a = 0; a < p.f.body.args.size(); ++a) args.push_back(fmt::format("a[{}]", a));
    out.table[k] += fmt::format(
        "    {{\"{}\", [](std::span<const tl::Tensor> a) {{ return cppgen_table::as_vector({}({})); }}}},\n",
        p.name, name, fmt::join(args, ", "));
  }
  for (int a = 2; a < argc; ++a) print_conformance(argv[a], out);
  for (std::size_t k = 0; k < kShards; ++k)
    write(
        fmt::format("{}/printed_{}.cpp", dir, k),
        fmt::format("// Printed by tlaloc_cppgen_print; do not edit.\n{}\n#include \"cppgen/printed.hpp\"\n\n"
                    "namespace {{\n\n{}const bool added = cppgen_table::add({{\n{}}});\n\n}}  // namespace\n",
                    tlaloc::cppgen::prelude(), out.body[k], out.table[k]));
  write(dir + "/failed.inc", out.failed);
  std::printf("printed %zu programs and conformance cases\n", out.next);
  return 0;
}
