// Writing safetensors: the header as compact JSON in Params order (metadata first,
// as the reference writer puts it), padded with spaces so the data starts at a
// multiple of 8 bytes, then each tensor's bytes as they are in memory.
#include <bit>
#include <cstring>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/tensor_impl.hpp"
#include "io/atomic_file.hpp"
#include "io/utf8.hpp"
#include "io/safetensors_dtypes.hpp"
#include "tlaloc/nn/safetensors.hpp"

namespace tlaloc::nn {
namespace {

// safetensors stores little-endian elements; host tensors are in native order.
static_assert(std::endian::native == std::endian::little, "safetensors I/O assumes a little-endian host");

void check_text(std::string_view who, std::string_view what, const std::string& s) {
  if (auto at = io::invalid_utf8_at(s))
    throw ValueError(fmt::format("{}: {} is not valid UTF-8 (byte {})", who, what, *at));
}

// The header and the tensors' bytes in file order: what both writers put out.
struct Layout {
  std::string header;  // the 8-byte size, then the padded JSON
  std::vector<std::span<const std::byte>> data;
};

Layout layout(const Params& tensors, const Metadata& metadata, std::string_view who) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) {
    auto& m = header["__metadata__"] = nlohmann::ordered_json::object();
    for (const auto& [key, value] : metadata) {
      check_text(who, fmt::format("metadata key '{}'", key), key);
      check_text(who, fmt::format("metadata value of '{}'", key), value);
      m[key] = value;
    }
  }
  Layout out;
  std::uint64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    if (name == "__metadata__") throw ValueError(fmt::format("{}: a tensor cannot be named '__metadata__'", who));
    check_text(who, fmt::format("tensor name '{}'", name), name);
    if (!t.defined()) throw ValueError(fmt::format("{}: tensor '{}' is undefined", who, name));
    if (t.is_symbolic())
      throw ValueError(fmt::format("{}: tensor '{}' is a traced value, not data; save outside the trace", who, name));
    if (io::safetensors_name(t.dtype()).empty())
      throw DTypeError(fmt::format("{}: tensor '{}' is {}, which safetensors has no name for", who, name,
                                   dtype_name(t.dtype())));
    const auto bytes = std::uint64_t(t.numel()) * itemsize(t.dtype());
    header[name] = {{"dtype", io::safetensors_name(t.dtype())},
                    {"shape", t.shape()},
                    {"data_offsets", {offset, offset + bytes}}};
    out.data.emplace_back(static_cast<const std::byte*>(t.raw_data()), std::size_t(bytes));
    offset += bytes;
  }
  std::string json = header.dump();
  json.append((8 - json.size() % 8) % 8, ' ');
  const auto n = std::uint64_t(json.size());
  out.header.resize(8);
  std::memcpy(out.header.data(), &n, 8);
  out.header += json;
  return out;
}

}  // namespace

std::vector<std::uint8_t> to_safetensors(const Params& tensors, const Metadata& metadata) {
  const Layout l = layout(tensors, metadata, "tl::nn::to_safetensors");
  std::vector<std::uint8_t> out(l.header.begin(), l.header.end());
  for (const auto& piece : l.data) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(piece.data());
    out.insert(out.end(), p, p + piece.size());
  }
  return out;
}

void save_safetensors(const std::filesystem::path& path, const Params& tensors, const Metadata& metadata) {
  constexpr std::string_view who = "tl::nn::save_safetensors";
  const Layout l = layout(tensors, metadata, who);
  // The tensors are written from their own storage: no copy of the whole file in memory.
  std::vector<std::span<const std::byte>> pieces{std::as_bytes(std::span(l.header))};
  pieces.insert(pieces.end(), l.data.begin(), l.data.end());
  io::write_file_atomically(path, pieces, who);
}

}  // namespace tlaloc::nn
