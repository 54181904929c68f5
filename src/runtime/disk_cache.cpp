#include "runtime/disk_cache.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <span>
#include <vector>

#include "io/atomic_file.hpp"
#include "io/sha256.hpp"
#include "tlaloc/error.hpp"

namespace tlaloc::runtime::detail {
namespace {

// Header: magic (8), format version (u32 LE), key (64 hex), payload length (u64
// LE), payload SHA-256 (64 hex); then the payload.
constexpr std::string_view kMagic = "TLXCACHE";
constexpr std::uint32_t kFormatVersion = 1;
constexpr std::size_t kHexSize = 64;
constexpr std::size_t kHeaderSize = kMagic.size() + 4 + kHexSize + 8 + kHexSize;

void put_le(std::string& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
}

std::uint64_t get_le(std::string_view in, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= std::uint64_t(static_cast<unsigned char>(in[std::size_t(i)])) << (8 * i);
  return v;
}

std::string header(const std::string& key, std::string_view payload) {
  std::string h(kMagic);
  put_le(h, kFormatVersion, 4);
  h += key;
  put_le(h, payload.size(), 8);
  h += io::sha256_hex(payload);
  return h;
}

std::optional<std::string> read_whole(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return std::nullopt;
  return bytes;
}

}  // namespace

std::string cache_key(const CacheKeyParts& parts) {
  std::string text = "tlaloc compile cache key 1\n";
  for (std::string_view p : {parts.platform_name, parts.platform_version, parts.compile_options, parts.program_text})
    text += fmt::format("{}:{}\n", p.size(), p);
  return io::sha256_hex(text);
}

DiskCache::Entry DiskCache::read(const std::string& key) const {
  std::error_code ec;
  const std::filesystem::path path = path_of(key);
  if (!std::filesystem::exists(path, ec)) return {};
  const std::optional<std::string> bytes = read_whole(path);
  if (!bytes || bytes->size() < kHeaderSize) return {Lookup::rejected};
  const std::string_view b(*bytes);
  std::size_t at = 0;
  auto take = [&](std::size_t n) {
    const std::string_view s = b.substr(at, n);
    at += n;
    return s;
  };
  if (take(kMagic.size()) != kMagic || get_le(take(4), 4) != kFormatVersion || take(kHexSize) != key)
    return {Lookup::rejected};
  const std::uint64_t length = get_le(take(8), 8);
  const std::string_view checksum = take(kHexSize);
  const std::string_view payload = b.substr(kHeaderSize);
  if (payload.size() != length || io::sha256_hex(payload) != checksum) return {Lookup::rejected};
  return {Lookup::hit, std::string(payload)};
}

void DiskCache::write(const std::string& key, std::string_view payload) const {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec)
    throw IOError(fmt::format("tl::runtime: the compile cache directory '{}' cannot be created: {}",
                              dir_.string(), ec.message()));
  const std::string h = header(key, payload);
  io::write_file_atomically(path_of(key), {std::as_bytes(std::span(h)), std::as_bytes(std::span(payload))},
                                    "tl::runtime: writing a compile cache entry");
}

std::optional<std::filesystem::path> cache_dir_from(const std::string& option) {
  if (!option.empty()) return std::filesystem::path(option);
  const char* env = std::getenv("TLALOC_PJRT_CACHE_DIR");
  if (env == nullptr || *env == '\0') return std::nullopt;
  return std::filesystem::path(env);
}

}  // namespace tlaloc::runtime::detail
