// The safetensors file format (as written by Hugging Face's `safetensors`): an 8-byte
// little-endian header size N, N bytes of UTF-8 JSON naming each tensor's dtype,
// shape and byte range, then the tensors' bytes, packed. Other readers open what we
// write; what we read is checked against every rule of the format, so a damaged or
// hostile file gives a tl::Error naming the file and the problem, never a crash.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tlaloc/export.hpp"
#include "tlaloc/nn/params.hpp"

TLALOC_PUBLIC_BEGIN
namespace tlaloc::nn {

// tl::IOError, by the name checkpoints first gave it.
using IOError = tlaloc::IOError;

// Free-form string pairs stored under "__metadata__".
using Metadata = std::map<std::string, std::string>;

struct SafeTensors {
  Params tensors;  // in the order of their bytes in the file (the writer's order)
  Metadata metadata;
};

// Writes host tensors in Params order, each contiguous, after a header padded with
// spaces to a multiple of 8 bytes (so the data starts aligned, as the reference
// writer does). The file is replaced atomically: a crash leaves the old one whole.
void save_safetensors(const std::filesystem::path& path, const Params& tensors,
                      const Metadata& metadata = {});
SafeTensors load_safetensors(const std::filesystem::path& path);

// The same, in memory. `source` names the buffer in error messages.
std::vector<std::uint8_t> to_safetensors(const Params& tensors, const Metadata& metadata = {});
SafeTensors from_safetensors(std::span<const std::uint8_t> bytes, std::string_view source = "buffer");

// The largest header a reader accepts, as in the reference implementation.
inline constexpr std::uint64_t safetensors_max_header_bytes = 100'000'000;

}  // namespace tlaloc::nn
TLALOC_PUBLIC_END
