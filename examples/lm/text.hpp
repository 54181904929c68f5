// The training text as bytes (the vocabulary is the 256 byte values) and random
// windows of it as next-byte batches.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <tlaloc/nn.hpp>
#include <tlaloc/tlaloc.hpp>

namespace lm {

namespace tl = tlaloc;
namespace nn = tlaloc::nn;

// The file's bytes; refused by name when it cannot be read or is shorter than one
// training window (`min_bytes`).
std::string read_text(const std::filesystem::path& path, std::size_t min_bytes);

// Token ids of bytes: [1, n] i32.
tl::Tensor byte_tokens(const std::string& bytes);

// `batch` windows of seq + 1 bytes at random offsets: inputs are bytes 0..seq-1 of
// each, targets bytes 1..seq ([batch, seq] i32 both).
nn::Batch sample_batch(const std::string& text, std::int64_t batch, std::int64_t seq, tl::random::Key key);

}  // namespace lm
