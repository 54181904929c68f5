#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <string>

#include "tlaloc/error.hpp"

namespace tlaloc::io {
namespace {

[[noreturn]] void fail(std::string_view who, const std::filesystem::path& path, std::string_view what, int err) {
  throw IOError(fmt::format("{}: {}: {}: {}", who, path.string(), what, std::strerror(err)));
}

// Closes the descriptor and removes the temporary file unless the write completed.
struct TempFile {
  int fd = -1;
  std::filesystem::path path;
  bool renamed = false;
  ~TempFile() {
    if (fd >= 0) ::close(fd);
    if (!renamed && !path.empty()) ::unlink(path.c_str());
  }
};

void write_all(int fd, std::span<const std::byte> bytes, std::string_view who, const std::filesystem::path& path) {
  // write() may write less than asked (signals, large sizes): loop until done.
  constexpr std::size_t max_chunk = std::size_t(1) << 30;
  while (!bytes.empty()) {
    const std::size_t n = std::min(bytes.size(), max_chunk);
    const ssize_t wrote = ::write(fd, bytes.data(), n);
    if (wrote < 0) {
      if (errno == EINTR) continue;
      fail(who, path, "cannot write", errno);
    }
    bytes = bytes.subspan(std::size_t(wrote));
  }
}

std::filesystem::path parent_of(const std::filesystem::path& path) {
  return path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
}

// Creates `dir/<temporary_prefix(path)><pid>-<n>` with `make` (a file or a directory),
// trying further counters if a leftover of an earlier process with our pid is there.
template <class Make>
std::filesystem::path make_temporary(const std::filesystem::path& path, Make make, std::string_view who) {
  static std::atomic<unsigned> counter{0};
  const std::filesystem::path dir = parent_of(path);
  for (int attempt = 0;; ++attempt) {
    std::filesystem::path tmp = dir / fmt::format("{}{}-{}", temporary_prefix(path), ::getpid(), counter++);
    if (make(tmp)) return tmp;
    const int err = errno;
    if (err != EEXIST || attempt >= 100)
      fail(who, dir / path.filename(), "cannot create a temporary beside it", err);
  }
}

void fsync_directory(const std::filesystem::path& dir, std::string_view who) {
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) fail(who, dir, "cannot open the directory to fsync it", errno);
  const int synced = ::fsync(dfd);
  const int err = errno;
  ::close(dfd);
  if (synced != 0) fail(who, dir, "cannot fsync the directory", err);
}

// Whether the process that made a temporary named "<prefix><pid>-<n>" no longer runs.
bool writer_is_gone(std::string_view rest) {
  const std::size_t dash = rest.find('-');
  if (dash == 0 || dash == std::string_view::npos) return false;
  pid_t pid = 0;
  for (const char c : rest.substr(0, dash)) {
    if (c < '0' || c > '9' || pid > 1000000000) return false;
    pid = pid * 10 + (c - '0');
  }
  return pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH;
}

}  // namespace

void remove_leftovers(const std::filesystem::path& path) {
  const std::string prefix = temporary_prefix(path);
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(parent_of(path), ec)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(prefix) && writer_is_gone(std::string_view(name).substr(prefix.size())))
      std::filesystem::remove_all(entry.path(), ec);  // best effort: another writer may race us
  }
}

std::string temporary_prefix(const std::filesystem::path& path) {
  return fmt::format(".{}.tmp-", path.filename().string());  // not "." + s: GCC 12's -Wrestrict misfires on it
}

void write_file_atomically(const std::filesystem::path& path, const std::vector<std::span<const std::byte>>& pieces,
                           std::string_view who) {
  if (path.filename().empty())
    throw IOError(fmt::format("{}: '{}' does not name a file", who, path.string()));
  // Same directory as the target: rename() is only atomic within one file system.
  const std::filesystem::path dir = parent_of(path);
  remove_leftovers(path);
  TempFile tmp;
  tmp.path = make_temporary(
      path,
      [&](const std::filesystem::path& p) {
        tmp.fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        return tmp.fd >= 0;
      },
      who);
  for (const auto& piece : pieces) write_all(tmp.fd, piece, who, tmp.path);
  // The data must be on disk before the rename makes it visible under the final name.
  if (::fsync(tmp.fd) != 0) fail(who, tmp.path, "cannot fsync", errno);
  const int fd = tmp.fd;
  tmp.fd = -1;
  if (::close(fd) != 0) fail(who, tmp.path, "cannot close", errno);
  if (::rename(tmp.path.c_str(), path.c_str()) != 0) fail(who, path, "cannot rename the temporary file over it", errno);
  tmp.renamed = true;
  // The rename itself is only durable once the directory is.
  fsync_directory(dir, who);
}

void replace_directory(const std::filesystem::path& path,
                       const std::function<void(const std::filesystem::path& fresh)>& fill,
                       std::string_view who) {
  const std::filesystem::path target = path.filename().empty() ? path.parent_path() : path;
  if (target.filename().empty() || target.filename() == "." || target.filename() == "..")
    throw IOError(fmt::format("{}: '{}' does not name a directory", who, path.string()));
  std::filesystem::create_directories(parent_of(target));
  remove_leftovers(target);
  const auto make_directory = [](const std::filesystem::path& p) { return ::mkdir(p.c_str(), 0777) == 0; };
  const std::filesystem::path fresh = make_temporary(target, make_directory, who);
  struct RemoveUnlessKept {
    std::filesystem::path path;
    ~RemoveUnlessKept() {
      std::error_code ec;
      if (!path.empty()) std::filesystem::remove_all(path, ec);
    }
  } cleanup{fresh};
  fill(fresh);
  fsync_directory(fresh, who);
  std::error_code ec;
  if (!std::filesystem::exists(target, ec)) {
    if (::rename(fresh.c_str(), target.c_str()) != 0)
      fail(who, target, "cannot rename the new directory to it", errno);
    cleanup.path.clear();
  } else if (::renameat2(AT_FDCWD, fresh.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) != 0) {
    // A file system without exchange: move the old directory aside first.
    if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
      fail(who, target, "cannot exchange the new directory with it", errno);
    const std::filesystem::path old = make_temporary(target, make_directory, who);
    if (::rename(target.c_str(), old.c_str()) != 0)
      fail(who, target, "cannot move the old directory aside", errno);
    if (::rename(fresh.c_str(), target.c_str()) != 0)
      fail(who, target, "cannot rename the new directory to it", errno);
    cleanup.path = old;
  }
  // cleanup now names the old contents (or nothing).
  fsync_directory(parent_of(target), who);
}

}  // namespace tlaloc::io
