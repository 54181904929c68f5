#include "parse.hpp"

#include "files.hpp"
#include "sanitizer.hpp"

#include <clang/Basic/Version.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Tooling/Tooling.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <thread>

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
  return {includes, stem + ".hpp", stem + ".pch", stem + ".deps", stem + ".lock"};
}

// Whether the entry can be read now. A fresh one can. The first parse (the input's)
// never waits: when the entry is missing or stale it starts a process that builds
// it and goes on without it, so that a run costs no more than a run without a cache
// and the build finishes after the run has ended. A later parse of the same run (a
// Hessian's) waits for a build in flight, this run's or another's, and reads it.
bool Parser::ready() const {
  if (usable_) return *usable_;
  if (!asked_) {
    asked_ = true;
    if (load()) {
      usable_ = true;
      return true;
    }
    start_build();
    return false;
  }
  wait_for_build();
  usable_ = load();
  return *usable_;
}

// Reads the entry's list of files when each still has the size and time it had.
bool Parser::load() const {
  std::optional<std::vector<std::string>> files = fresh(entry_.deps);
  if (!files || !fs::exists(entry_.pch)) return false;
  precompiled_ = std::move(*files);
  return true;
}

namespace {

// A forked builder keeps nothing of the run's terminal or pipes: a build system waits
// for its job's output to close, which would make it wait for the entry.
void detach() {
  ::setsid();
  const int null = ::open("/dev/null", O_RDWR);
  if (null < 0) return;
  for (int fd = 0; fd < 3; ++fd) ::dup2(null, fd);
  if (null > 2) ::close(null);
}

}  // namespace

// One build per entry at a time: the builder holds an exclusive flock on the entry's
// lock file until it exits (the kernel releases it if it dies), and a run that cannot
// take the lock goes on without the entry. Without a lock or a fork, no cache.
void Parser::start_build() const {
  std::error_code ec;
  fs::create_directories(cache_dir_, ec);
  if (ec) return;
  const int lock = ::open(entry_.lock.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
  if (lock < 0) return;
  // Another run may have finished the entry since it was looked for.
  if (::flock(lock, LOCK_EX | LOCK_NB) != 0 || load()) {
    ::close(lock);
    return;
  }
  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = ::fork();
  if (pid == 0) {
    // The builder never returns into the run's code, whatever the build throws.
    detach();
    bool built = false;
    try {
      built = build();
    } catch (...) {
    }
    ::_exit(built ? 0 : 1);
  }
  ::close(lock);  // the builder's copy holds it
  builder_ = pid;
}

// This run's builder is waited for; another run's for as long as it holds the lock,
// up to a minute (a run could be waiting for this one).
void Parser::wait_for_build() const {
  if (builder_ > 0) {
    int status = 0;
    while (::waitpid(builder_, &status, 0) < 0 && errno == EINTR) {
    }
    builder_ = -1;
    return;
  }
  const int lock = ::open(entry_.lock.c_str(), O_RDONLY | O_CLOEXEC);
  if (lock < 0) return;
  for (int tries = 0; tries < 3000 && ::flock(lock, LOCK_SH | LOCK_NB) != 0; ++tries)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::close(lock);
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
  clang::IgnoringDiagConsumer quiet;
  invocation.setDiagnosticConsumer(&quiet);
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
  return ok && fs::exists(e.pch);
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
