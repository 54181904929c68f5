// tlaloc-grad: writes the gradients of a C++ file's tl::grad calls as C++ at build
// time (docs/BUILD_TIME_GRADIENTS.md).
//
//   tlaloc-grad INPUT -o OUTPUT [--dump-dir DIR] [--depfile FILE] [--cache-dir CACHE]
//               [--arguments right-to-left|left-to-right] [-- compiler flags]
//
// OUTPUT is INPUT with each generated call replaced (and #line directives back to
// INPUT); DIR receives one readable .grad.cpp per gradient. Exit status 1 with
// `file:line:col: error: [CODE] ...` when a differentiated body cannot be lowered.
// FILE (make's format, as a compiler's -MD writes) lists the headers INPUT read, so
// that a build reruns the tool when the body of an inlined function changes.
// CACHE keeps precompiled headers of files' leading `#include <...>` lines, which
// later runs with the same lines and flags read instead of parsing them (parse.hpp).
// --arguments: the order in which the compiler that builds OUTPUT evaluates call
// arguments (GCC: right-to-left, Clang: left-to-right, the default), which the
// generated ops follow so that they match what tl::grad would have traced.
#include <clang/Frontend/ASTUnit.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string_view>

#include "files.hpp"
#include "parse.hpp"
#include "program.hpp"
#include "rewrite.hpp"
#include "rules.hpp"

#ifndef TLALOC_GRAD_RESOURCE_DIR
#error "TLALOC_GRAD_RESOURCE_DIR: clang's resource directory (its builtin headers)"
#endif

namespace tlaloc_grad {

std::string_view code_name(Code c) {
  switch (c) {
    case Code::not_differentiable: return "NOT_DIFFERENTIABLE";
    case Code::unsupported_construct: return "UNSUPPORTED_CONSTRUCT";
    case Code::shape_mismatch: return "SHAPE_MISMATCH";
  }
  return "?";
}

void refuse(Code c, const Loc& where, const std::string& message) { throw Diagnostic(c, where, message); }

namespace {

int usage() {
  std::cerr << "usage: tlaloc-grad INPUT -o OUTPUT [--dump-dir DIR] [--depfile FILE] [--cache-dir CACHE]"
               " [--arguments right-to-left|left-to-right] [-- compiler flags]\n"
               "       tlaloc-grad --list-rules\n";
  return 2;
}

// Gradients this file no longer has (a call moved or went away) leave the dump directory.
void remove_stale(const std::string& dir, const std::string& stem, const Rewritten& r) {
  if (!std::filesystem::is_directory(dir)) return;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    const bool ours = name.rfind(stem + ".", 0) == 0 && name.size() > 9 && name.ends_with(".grad.cpp");
    const bool current = std::any_of(r.gradients.begin(), r.gradients.end(),
                                     [&](const auto& g) { return std::filesystem::path(g.path) == entry.path(); });
    if (ours && !current) std::filesystem::remove(entry.path());
  }
}

// A path as make reads it in a rule.
std::string make_escaped(const std::string& path) {
  std::string r;
  for (char c : path) {
    if (c == ' ' || c == '#') r += '\\';
    if (c == '$') r += '$';
    r += c;
  }
  return r;
}

// `OUTPUT: INPUT HEADER...`, every file the translation unit read.
std::string depfile(const std::string& output, const std::string& input, std::vector<std::string> read) {
  const std::string first = std::filesystem::weakly_canonical(input).string();
  std::erase(read, first);
  std::string text = make_escaped(output) + ": \\\n  " + make_escaped(first);
  for (const std::string& f : read) text += " \\\n  " + make_escaped(f);
  return text + "\n";
}

int run(int argc, char** argv) {
  std::string input, output, dump_dir, deps, cache_dir, order = "left-to-right";
  std::vector<std::string> flags{"-std=c++20"};
  if (argc == 2 && std::string_view(argv[1]) == "--list-rules") {
    // The public functions and operators (add, neg, ...) generated gradients go through.
    for (const std::string& name : rule_names()) std::cout << name << "\n";
    return 0;
  }
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") {
      flags.assign(argv + i + 1, argv + argc);
      // The library's headers need C++20: the default stays unless a standard is named.
      if (std::none_of(flags.begin(), flags.end(),
                       [](const std::string& f) { return f.starts_with("-std="); }))
        flags.insert(flags.begin(), "-std=c++20");
      break;
    }
    if (a == "-o" && i + 1 < argc) output = argv[++i];
    else if (a == "--dump-dir" && i + 1 < argc) dump_dir = argv[++i];
    else if (a == "--depfile" && i + 1 < argc) deps = argv[++i];
    else if (a == "--cache-dir" && i + 1 < argc)
      cache_dir = argv[++i];
    else if (a == "--arguments" && i + 1 < argc) order = argv[++i];
    else if (input.empty() && a[0] != '-') input = a;
    else return usage();
  }
  if (input.empty() || output.empty() || (order != "left-to-right" && order != "right-to-left")) return usage();
  if (dump_dir.empty()) dump_dir = std::filesystem::path(output).parent_path().string();
  if (dump_dir.empty()) dump_dir = ".";
  const std::optional<std::string> read = read_text(input);
  if (!read) {
    std::cerr << "tlaloc-grad: cannot read " << input << "\n";
    return 1;
  }
  const std::string& source = *read;
  const std::string abs_input = std::filesystem::absolute(input).lexically_normal().string();
  flags.push_back("-resource-dir=" TLALOC_GRAD_RESOURCE_DIR);
  flags.push_back("-Wno-unknown-warning-option");
  flags.push_back("-fsyntax-only");
  const Parser parser(flags, cache_dir, source);
  Parsed parsed = parser.parse(source, abs_input);
  const std::unique_ptr<clang::ASTUnit>& ast = parsed.ast;
  if (!ast || ast->getDiagnostics().hasErrorOccurred()) {
    std::cerr << "tlaloc-grad: " << input << " does not compile (errors above)\n";
    return 1;
  }
  Options opt{
      std::filesystem::absolute(dump_dir).lexically_normal().string(),
      std::filesystem::path(input).filename().string(), order == "right-to-left",
      [&parser](const std::string& code, const std::string& name) { return parser.parse(code, name).ast; }};
  try {
    const Rewritten r = rewrite(ast->getASTContext(), source, abs_input, opt);
    for (const auto& note : r.notes) std::cerr << note << "\n";
    const auto save = [](const std::string& path, const std::string& text) {
      if (!write_if_changed(path, text)) throw std::runtime_error("cannot write " + path);
    };
    for (const auto& g : r.gradients) save(g.path, g.text);
    remove_stale(opt.dump_dir, opt.stem, r);
    save(output, r.text);
    if (!deps.empty()) save(deps, depfile(output, abs_input, parser.files_read(parsed)));
    keep_until_exit(std::move(parsed.ast));
  } catch (const Diagnostic& d) {
    std::cerr << d.loc.file << ":" << d.loc.line << ":" << d.loc.col << ": error: [" << code_name(d.code) << "] "
              << d.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace tlaloc_grad

int main(int argc, char** argv) {
  try {
    return tlaloc_grad::run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "tlaloc-grad: " << e.what() << "\n";
    return 1;
  }
}
