// Parsing a translation unit for tlaloc-grad. Most of a parse is the headers
// (`<tlaloc/tlaloc.hpp>` and the standard library); with a cache directory, a file's
// leading `#include <...>` lines are read from a precompiled header kept there
// (docs/BUILD_TIME_GRADIENTS.md, "Cost"). A missing entry is built by a process of
// its own, which outlives the run that started it.
#pragma once

#include <clang/Basic/Diagnostic.h>
#include <clang/Frontend/ASTUnit.h>

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tlaloc_grad {

struct Parsed {
  std::unique_ptr<clang::ASTUnit> ast;
  std::vector<std::string> precompiled;  // the files its precompiled header was built from
};

// The parser of one input file and of the code generated for it.
class Parser {
 public:
  // flags: the compiler's (language, -I, -D); cache_dir: empty for no cache; input:
  // the input's text, whose leading `#include <...>` lines the cache's entry holds.
  Parser(std::vector<std::string> flags, std::string cache_dir, const std::string& input);
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;

  // The unit of `code` named `name`; one with errors (printed) when it does not
  // compile. Generated code is parsed after the input's entry too: it is written to
  // follow the input's includes. The cache never changes the result: a parse through
  // it that fails is done again without it.
  Parsed parse(const std::string& code, const std::string& name) const;

  // Every file a parse read, its precompiled header's included (the cache's own
  // files left out): what a build's depfile lists.
  std::vector<std::string> files_read(const Parsed& p) const;

 private:
  struct Entry {
    std::string includes, header, pch, deps, lock;
  };
  Entry entry(const std::string& includes) const;
  bool ready() const;
  bool load() const;
  void start_build() const;
  void wait_for_build() const;
  bool build() const;
  std::unique_ptr<clang::ASTUnit> parse_with(const std::string& code, const std::string& name,
                                             const std::string& pch) const;

  std::vector<std::string> flags_;
  std::string cache_dir_;
  Entry entry_;
  // What the entry's precompiled header was built from; whether it can be used.
  mutable std::vector<std::string> precompiled_;
  mutable std::optional<bool> usable_;
  // A parse through the cache is quiet: its errors are reported by the parse done
  // again without it. It outlives the units, which keep a pointer to it.
  mutable clang::IgnoringDiagConsumer quiet_;
  // Whether a parse has asked for the entry yet; the process building it, if this run
  // started one.
  mutable bool asked_ = false;
  mutable pid_t builder_ = -1;
};

// Leaves a unit allocated until the process ends, as the clang driver's -disable-free
// leaves its own: freeing an AST node by node costs about a tenth of a run. Sanitizer
// builds free it, so that their leak checks still see the tool's own leaks.
void keep_until_exit(std::unique_ptr<clang::ASTUnit> unit);

}  // namespace tlaloc_grad
