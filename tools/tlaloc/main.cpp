// `tlaloc`: the command-line tool.
//   tlaloc run FILE.mlir [--split-input-file] [--entry NAME] [--args "[dense<..> : tensor<..>, ...]"]
// parses, verifies and interprets each module (or each `// -----` split), runs its
// check ops, reports every failing case with its location, and ends with
// `N passed, N failed` (exit status 1 on any failure or parse error). With --args,
// it runs the entry (@main unless named) on those values and prints its results.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "interp/interpreter.hpp"
#include "ops/check.hpp"
#include "stablehlo/stablehlo.hpp"

namespace tl = tlaloc;

namespace {

int usage() {
  std::cerr << "usage: tlaloc run FILE.mlir [--split-input-file] [--entry NAME] [--args \"[dense<1> : "
               "tensor<2xi32>, ...]\"]\n"
               "       tlaloc emit FILE.mlir [--generic]   (parse, then print StableHLO)\n";
  return 2;
}

struct Options {
  std::string command, file, entry;
  std::optional<std::string> args;  // --args: the entry's argument values
  bool split = false;
  bool generic = false;
};

bool parse_args(int argc, char** argv, Options& o) {
  if (argc < 3) return false;
  o.command = argv[1];
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--split-input-file")
      o.split = true;
    else if (a == "--generic")
      o.generic = true;
    else if (a == "--entry" && i + 1 < argc)
      o.entry = argv[++i];
    else if (a == "--args" && i + 1 < argc)
      o.args = argv[++i];
    else if (a.rfind("--args=", 0) == 0)
      o.args = a.substr(7);
    else if (!a.empty() && a[0] != '-' && o.file.empty())
      o.file = a;
    else
      return false;
  }
  return !o.file.empty() && (o.command == "run" || o.command == "emit");
}

std::string where(const std::string& file, const tl::ir::Location& loc) {
  return loc.line > 0 ? fmt::format("{}:{}:{}", file, loc.line, loc.col) : file;
}

struct Tally {
  int passed = 0;
  int failed = 0;
};

// Runs the cases of one module: the entry point if named, else every public
// function without parameters.
// Runs the entry on the values of --args and prints its results as StableHLO values.
void run_with_args(const tl::ir::Module& m, const Options& o, Tally& t) {
  const std::vector<tl::Tensor> args = tl::stablehlo::parse_arguments(*o.args);
  tl::detail::HostQueue queue;
  const tl::interp::Program prog(m, o.entry.empty() ? "main" : o.entry, {.host_queue = &queue});
  for (const tl::Tensor& r : prog.run(args)) std::cout << tl::stablehlo::value_text(r) << "\n";
  ++t.passed;
}

void run_module(const tl::ir::Module& m, const Options& o, Tally& t) {
  if (o.args) return run_with_args(m, o, t);
  // An empty split passes, as in MLIR's test files; a whole file must hold something.
  if (m.functions.empty() && o.entry.empty()) {
    if (!o.split) throw tl::Error("the module has no functions");
    ++t.passed;
    return;
  }
  std::vector<const tl::ir::Function*> cases;
  if (!o.entry.empty())
    cases.push_back(&m.entry(o.entry));
  else
    for (const auto& f : m.functions)
      if (f.is_public && f.body.args.empty()) cases.push_back(&f);
  if (cases.empty()) {
    // An artifact's program (@export.<entry>) takes the weights and inputs: it is
    // served (docs/SERVING.md), not run as a test module.
    std::string takes;
    for (const auto& f : m.functions)
      if (f.is_public) takes += fmt::format("; @{} takes {} arguments", f.name, f.body.args.size());
    throw tl::Error(fmt::format("no public function without parameters to run (name one with --entry){}{}",
                                takes,
                                takes.empty() ? "" : " (serve an exported artifact: docs/SERVING.md)"));
  }
  for (const tl::ir::Function* f : cases) {
    try {
      // A host queue for infeed (empty: what the caller queues) and outfeed (kept, unread).
      tl::detail::HostQueue queue;
      const tl::interp::Program prog(m, f->name, {.host_queue = &queue});
      tl::detail::clear_probes();
      prog.run(std::vector<tl::Tensor>{});
      ++t.passed;
    } catch (const std::exception& e) {
      ++t.failed;
      std::cout << fmt::format("{}: FAILED @{}: {}\n", where(o.file, tl::interp::last_failure_location()),
                               f->name, e.what());
    }
  }
}

int run(const Options& o, const std::string& text) {
  Tally t;
  std::vector<tl::stablehlo::Split> pieces;
  if (o.split)
    pieces = tl::stablehlo::split_input(text);
  else
    pieces.push_back({text, 1});
  for (const auto& piece : pieces) {
    try {
      const tl::ir::Module m = tl::stablehlo::parse(piece.text, o.file, piece.first_line);
      if (o.command == "emit") {
        std::cout << tl::stablehlo::emit(m, {o.generic, {}});
        continue;
      }
      run_module(m, o, t);
    } catch (const std::exception& e) {
      ++t.failed;
      std::cout << fmt::format("{}: error: {}\n", o.file, e.what());
    }
  }
  if (o.command == "emit") return t.failed ? 1 : 0;
  std::cout << fmt::format("{} passed, {} failed\n", t.passed, t.failed);
  return t.failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse_args(argc, argv, o)) return usage();
  std::ifstream in(o.file, std::ios::binary);
  if (!in) {
    std::cerr << fmt::format("tlaloc: cannot read {}\n", o.file);
    return 1;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return run(o, ss.str());
}
