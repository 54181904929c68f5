#include "parse.hpp"

#include "files.hpp"
#include "sanitizer.hpp"

#include <clang/Basic/Version.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Tooling/Tooling.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

namespace tlaloc_grad {

namespace fs = std::filesystem;

namespace {

// The `#include <...>` lines that open `code`, before anything but blank lines and
// `//` comments. A precompiled header can stand for them: read again after it, each
// include is skipped by its header's guard. A quoted include ends them, since a
// project's own headers change often and each change would build the entry again; so
// does a line continued by a backslash or opening a block comment, which could hide
// what follows.
std::string leading_includes(const std::string& code) {
  std::string includes;
  std::istringstream in(code);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::size_t start = line.find_first_not_of(" \t");
    const std::string_view s = start == std::string::npos ? "" : std::string_view(line).substr(start);
    if (s.ends_with('\\') || s.find("/*") != std::string_view::npos) break;
    if (s.starts_with("#include <"))
      includes += std::string(s) + "\n";
    else if (!s.empty() && !s.starts_with("//"))
      break;
  }
  return includes;
}

// "SIZE MTIME" of a file, what a precompiled header checks of its inputs.
std::optional<std::string> stamp(const std::string& path) {
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) return std::nullopt;
  const fs::file_time_type time = fs::last_write_time(path, ec);
  if (ec) return std::nullopt;
  return std::to_string(size) + " " + std::to_string(time.time_since_epoch().count());
}

// The files a source manager read, as absolute paths.
std::vector<std::string> source_files(const clang::SourceManager& sm) {
  std::vector<std::string> files;
  for (auto it = sm.fileinfo_begin(); it != sm.fileinfo_end(); ++it)
    files.push_back(fs::weakly_canonical(fs::absolute(it->first->getName().str())).string());
  return files;
}

// clang's action that writes a precompiled header, to a file of our choosing, noting
// the files it read.
class WritePch : public clang::GeneratePCHAction {
 public:
  WritePch(std::string out, std::vector<std::string>& read) : out_(std::move(out)), read_(read) {}

 protected:
  bool BeginInvocation(clang::CompilerInstance& ci) override {
    ci.getFrontendOpts().OutputFile = out_;
    return true;
  }
  void EndSourceFileAction() override {
    read_ = source_files(getCompilerInstance().getSourceManager());
    GeneratePCHAction::EndSourceFileAction();
  }

 private:
  std::string out_;
  std::vector<std::string>& read_;
};

// The files an entry was built from, when each still has the size and time it had.
std::optional<std::vector<std::string>> fresh(const std::string& deps) {
  std::ifstream in(deps);
  std::vector<std::string> files;
  for (std::string line; std::getline(in, line);) {
    const std::size_t size_end = line.find(' ');
    const std::size_t time_end = size_end == std::string::npos ? size_end : line.find(' ', size_end + 1);
    if (time_end == std::string::npos) return std::nullopt;
    files.push_back(line.substr(time_end + 1));
    if (stamp(files.back()) != line.substr(0, time_end)) return std::nullopt;
  }
  if (files.empty()) return std::nullopt;
  return files;
}

std::uint64_t fnv1a(std::uint64_t h, std::string_view s) {
  for (const char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return (h ^ 0xffu) * 1099511628211ull;  // a separator, so that ("ab", "c") != ("a", "bc")
}

}  // namespace

Parser::Parser(std::vector<std::string> flags, std::string cache_dir, const std::string& input)
    : flags_(std::move(flags)), cache_dir_(std::move(cache_dir)) {
  const std::string includes = leading_includes(input);
  if (!cache_dir_.empty() && !includes.empty())
    entry_ = entry(includes);
  else
    usable_ = false;
}

// An entry (the header of the input's leading includes, its precompiled header, and
// the stamps of the files that one was built from) is named by what the precompiled
// header depends on besides those files: the includes, the flags, the directory
// relative -I paths start from, clang's version.
Parser::Entry Parser::entry(const std::string& includes) const {
  std::uint64_t h = fnv1a(14695981039346656037ull, CLANG_VERSION_STRING);
  std::error_code ec;
  h = fnv1a(h, fs::current_path(ec).string());
  for (const std::string& f : flags_) h = fnv1a(h, f);
  h = fnv1a(h, includes);
  char name[17];
  std::snprintf(name, sizeof name, "%016llx", static_cast<unsigned long long>(h));
  const std::string stem = (fs::path(cache_dir_) / name).string();
  return {includes, stem + ".hpp", stem + ".pch", stem + ".deps"};
}

Parser::~Parser() {
  if (building_.valid()) building_.wait();
}

// Whether the entry can be read now; decided once. A fresh one can. A missing or
// stale one is built on a second thread while the first parse (the input's) goes on
// without it, so that the first run of a build costs the longer of the two rather
// than their sum; later parses (the Hessians') wait for it.
bool Parser::ready() const {
  if (usable_) return *usable_;
  if (building_.valid()) {
    usable_ = building_.get();
    return *usable_;
  }
  if (std::optional<std::vector<std::string>> files = fresh(entry_.deps); files && fs::exists(entry_.pch)) {
    precompiled_ = std::move(*files);
    usable_ = true;
    return true;
  }
  building_ = std::async(std::launch::async, [this] { return build(); });
  return false;
}

bool Parser::build() const {
  const Entry& e = entry_;
  std::error_code ec;
  fs::create_directories(cache_dir_, ec);
  // The header keeps its time when it exists: precompiled headers built from it
  // by other runs check it.
  if (ec || !write_if_changed(e.header, e.includes)) return false;
  const std::string tmp = e.pch + "." + std::to_string(::getpid()) + ".tmp";
  std::vector<std::string> command{"tlaloc-grad"};
  command.insert(command.end(), flags_.begin(), flags_.end());
  command.insert(command.end(), {"-x", "c++-header", e.header});
  llvm::IntrusiveRefCntPtr<clang::FileManager> files(new clang::FileManager(clang::FileSystemOptions()));
  std::vector<std::string> read;
  clang::tooling::ToolInvocation invocation(command, std::make_unique<WritePch>(tmp, read), files.get());
  invocation.setDiagnosticConsumer(&quiet_build_);
  std::string deps;
  bool ok = invocation.run() && fs::exists(tmp) && !read.empty();
  for (const std::string& f : read) {
    const std::optional<std::string> s = stamp(f);
    ok = ok && s.has_value();
    if (ok) deps += *s + " " + f + "\n";
  }
  // The stamps first: a run that finds the precompiled header finds them too.
  ok = ok && write_if_changed(e.deps, deps);
  if (ok) fs::rename(tmp, e.pch, ec);
  fs::remove(tmp, ec);
  if (ok && fs::exists(e.pch)) precompiled_ = std::move(read);
  return !precompiled_.empty();
}

std::unique_ptr<clang::ASTUnit> Parser::parse_with(const std::string& code, const std::string& name,
                                                   const std::string& pch) const {
  std::vector<std::string> args = flags_;
  if (pch.empty()) return clang::tooling::buildASTFromCodeWithArgs(code, args, name, "tlaloc-grad");
  args.insert(args.end(), {"-include-pch", pch});
  return clang::tooling::buildASTFromCodeWithArgs(
      code, args, name, "tlaloc-grad", std::make_shared<clang::PCHContainerOperations>(),
      clang::tooling::getClangStripDependencyFileAdjuster(), {}, &quiet_);
}

Parsed Parser::parse(const std::string& code, const std::string& name) const {
  if (!ready()) return {parse_with(code, name, ""), {}};
  if (std::unique_ptr<clang::ASTUnit> ast = parse_with(code, name, entry_.pch);
      ast && !ast->getDiagnostics().hasErrorOccurred())
    return {std::move(ast), precompiled_};
  std::unique_ptr<clang::ASTUnit> plain = parse_with(code, name, "");
  // The entry misled a parse that succeeds without it: it goes, and the next run
  // builds it again.
  if (plain && !plain->getDiagnostics().hasErrorOccurred()) {
    std::error_code ec;
    fs::remove(entry_.pch, ec);
    usable_ = false;
  }
  return {std::move(plain), {}};
}

std::vector<std::string> Parser::files_read(const Parsed& p) const {
  std::vector<std::string> files = source_files(p.ast->getSourceManager());
  files.insert(files.end(), p.precompiled.begin(), p.precompiled.end());
  if (!cache_dir_.empty()) {
    const std::string cache = fs::weakly_canonical(fs::absolute(cache_dir_)).string() + "/";
    std::erase_if(files, [&cache](const std::string& f) { return f.starts_with(cache); });
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

void keep_until_exit(std::unique_ptr<clang::ASTUnit> unit) {
#ifndef TLALOC_GRAD_ASAN
  (void)unit.release();
#endif
}

}  // namespace tlaloc_grad
