#include "io/atomic_file.hpp"

#include <fcntl.h>
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

}  // namespace

std::string temporary_prefix(const std::filesystem::path& path) {
  return fmt::format(".{}.tmp-", path.filename().string());  // not "." + s: GCC 12's -Wrestrict misfires on it
}

void write_file_atomically(const std::filesystem::path& path, const std::vector<std::span<const std::byte>>& pieces,
                           std::string_view who) {
  if (path.filename().empty())
    throw IOError(fmt::format("{}: '{}' does not name a file", who, path.string()));
  // Same directory as the target: rename() is only atomic within one file system.
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  static std::atomic<unsigned> counter{0};
  TempFile tmp;
  for (int attempt = 0; tmp.fd < 0; ++attempt) {
    tmp.path = dir / fmt::format("{}{}-{}", temporary_prefix(path), ::getpid(), counter++);
    tmp.fd = ::open(tmp.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (tmp.fd < 0) {
      const int err = errno;
      if (err == EEXIST && attempt < 100) continue;  // a leftover of an earlier process with our pid
      tmp.path.clear();
      fail(who, dir / path.filename(), "cannot create a temporary file beside it", err);
    }
  }
  for (const auto& piece : pieces) write_all(tmp.fd, piece, who, tmp.path);
  // The data must be on disk before the rename makes it visible under the final name.
  if (::fsync(tmp.fd) != 0) fail(who, tmp.path, "cannot fsync", errno);
  const int fd = tmp.fd;
  tmp.fd = -1;
  if (::close(fd) != 0) fail(who, tmp.path, "cannot close", errno);
  if (::rename(tmp.path.c_str(), path.c_str()) != 0) fail(who, path, "cannot rename the temporary file over it", errno);
  tmp.renamed = true;
  // The rename itself is only durable once the directory is.
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) fail(who, dir, "cannot open the directory to fsync it", errno);
  const int synced = ::fsync(dfd);
  const int err = errno;
  ::close(dfd);
  if (synced != 0) fail(who, dir, "cannot fsync the directory", err);
}

}  // namespace tlaloc::io
