// Prints the table's programs (programs.hpp) as C++ at build time: kShards files
// of printed functions, each registering them by program name, and a list of the
// programs whose printing failed (none are expected; the table test reports them).
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <iostream>

#include "cppgen/cppgen.hpp"
#include "cppgen/programs.hpp"

namespace {

constexpr int kShards = 8;

void write(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  if (!f) throw std::runtime_error("cannot write " + path);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: tlaloc_cppgen_print OUTDIR\n";
    return 2;
  }
  const std::string dir = argv[1];
  std::vector<std::string> body(kShards), table(kShards);
  std::string failed;
  const std::vector<cppgen_table::Program> programs = cppgen_table::programs();
  for (std::size_t i = 0; i < programs.size(); ++i) {
    const cppgen_table::Program& p = programs[i];
    const std::string name = fmt::format("p{}", i);
    std::string text;
    try {
      text = tlaloc::cppgen::print(p.f, {.name = name, .comment = {p.name}});
    } catch (const std::exception& e) {
      failed += fmt::format("    {{\"{}\", \"{}\"}},\n", p.name, e.what());
      continue;
    }
    const std::size_t k = i % kShards;
    body[k] += text + "\n";
    std::vector<std::string> args;
    for (std::size_t a = 0; a < p.f.body.args.size(); ++a) args.push_back(fmt::format("a[{}]", a));
    table[k] += fmt::format("    {{\"{}\", [](std::span<const tl::Tensor> a) {{ return cppgen_table::as_vector({}({})); }}}},\n",
                            p.name, name, fmt::join(args, ", "));
  }
  for (int k = 0; k < kShards; ++k)
    write(fmt::format("{}/printed_{}.cpp", dir, k),
          fmt::format("// Printed by tlaloc_cppgen_print; do not edit.\n{}\n#include \"cppgen/printed.hpp\"\n\n"
                      "namespace {{\n\n{}const bool added = cppgen_table::add({{\n{}}});\n\n}}  // namespace\n",
                      tlaloc::cppgen::prelude(), body[k], table[k]));
  write(dir + "/failed.inc", failed);
  std::printf("printed %zu programs\n", programs.size());
  return 0;
}
