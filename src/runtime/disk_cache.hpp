// The on-disk compile cache (TLALOC_PJRT_CACHE_DIR, docs/RUNTIME.md): serialized
// executables, one file per key. An entry is a fixed header (magic, format
// version, key, payload length, payload SHA-256) and the payload. Files are
// replaced atomically (temporary file, fsync, rename), so a reader sees a whole
// entry or none, and processes filling one directory at once cannot tear each
// other's entries; whatever fails a check is reported as rejected, never trusted.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace tlaloc::runtime::detail {

// What a compile depends on: the key hashes all four, each length-prefixed.
struct CacheKeyParts {
  std::string_view platform_name, platform_version, compile_options, program_text;
};

// SHA-256 of the parts, lower-case hex (64 characters).
std::string cache_key(const CacheKeyParts& parts);

class DiskCache {
 public:
  explicit DiskCache(std::filesystem::path dir) : dir_(std::move(dir)) {}

  enum class Lookup { hit, absent, rejected };
  struct Entry {
    Lookup lookup = Lookup::absent;
    std::string payload = {};  // set for a hit
  };
  // Never throws for a bad entry: unreadable, foreign, truncated, of another key
  // or with a payload that fails its checksum, it is `rejected`.
  Entry read(const std::string& key) const;
  // Throws IOError when the entry cannot be written (the caller may go on without).
  void write(const std::string& key, std::string_view payload) const;

  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path path_of(const std::string& key) const { return dir_ / (key + ".tlxc"); }

 private:
  std::filesystem::path dir_;
};

// The directory from SessionOptions::cache_dir, else TLALOC_PJRT_CACHE_DIR; none
// when both are empty.
std::optional<std::filesystem::path> cache_dir_from(const std::string& option);

}  // namespace tlaloc::runtime::detail
