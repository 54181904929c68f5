// Reading safetensors, checking every rule of the format before any tensor is made:
// the header size (at most 100 MB, inside the file), UTF-8 JSON object (starting
// with '{', trailing whitespace allowed, as the reference reader) without duplicate
// keys, well-formed entries with known dtypes, shapes whose byte size fits in 64 bits
// and matches the entry's byte range, and byte ranges that tile the data exactly
// (no overlap, no gap, nothing past the end, nothing after the last tensor).
#include <algorithm>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

#include "core/tensor_impl.hpp"
#include "io/utf8.hpp"
#include "io/safetensors_dtypes.hpp"
#include "tlaloc/nn/safetensors.hpp"

namespace tlaloc::nn {
namespace {

using json = nlohmann::ordered_json;

struct Entry {
  std::string name;
  DType dtype;
  Shape shape;
  std::uint64_t begin, end;
};

// Throws a ValueError "<who>: <source>: <problem>".
struct Reporter {
  std::string_view who, source;
  template <class... A> [[noreturn]] void fail(fmt::format_string<A...> f, A&&... a) const {
    throw ValueError(fmt::format("{}: {}: {}", who, source, fmt::format(f, std::forward<A>(a)...)));
  }
};

// A JSON number that is a non-negative integer.
std::uint64_t unsigned_of(const json& j, const Reporter& r, std::string_view name, std::string_view field) {
  if (!j.is_number_unsigned())
    r.fail("tensor '{}': {} holds {}, not a non-negative integer", name, field, j.dump());
  return j.get<std::uint64_t>();
}

// A header nests three levels (the header, an entry, its shape); deeper nesting is
// refused while it is parsed, before anything (a message's dump) recurses into it.
constexpr int kMaxHeaderDepth = 16;

// nlohmann keeps the last of two equal keys; the format forbids them, so a parse
// callback tracks the keys of each open object.
json parse_header(std::string_view text, const Reporter& r) {
  std::vector<std::set<std::string>> open;
  auto callback = [&](int depth, json::parse_event_t event, json& parsed) {
    const bool opens =
        event == json::parse_event_t::object_start || event == json::parse_event_t::array_start;
    if (opens && depth >= kMaxHeaderDepth) r.fail("the header nests deeper than {} levels", kMaxHeaderDepth);
    if (event == json::parse_event_t::object_start)
      open.emplace_back();
    else if (event == json::parse_event_t::object_end)
      open.pop_back();
    else if (event == json::parse_event_t::key && !open.back().insert(parsed.get<std::string>()).second)
      r.fail("the header has the key '{}' twice{}", parsed.get<std::string>(),
             open.size() == 1 ? "" : " in one entry");
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), callback);
  } catch (const json::exception& e) {
    r.fail("the header is not valid JSON ({})", e.what());
  }
}

Entry entry_of(const std::string& name, const json& j, const Reporter& r) {
  if (!j.is_object()) r.fail("tensor '{}': the entry is {}, not an object", name, j.type_name());
  for (const auto& [key, value] : j.items())
    if (key != "dtype" && key != "shape" && key != "data_offsets") r.fail("tensor '{}': unknown field '{}'", name, key);
  for (const char* key : {"dtype", "shape", "data_offsets"})
    if (!j.contains(key)) r.fail("tensor '{}': the entry has no '{}'", name, key);
  Entry e{name, DType::f32, {}, 0, 0};
  const json& dtype = j["dtype"];
  if (!dtype.is_string()) r.fail("tensor '{}': dtype is {}, not a string", name, dtype.dump());
  const auto t = io::safetensors_dtype(dtype.get<std::string>());
  if (!t) r.fail("tensor '{}': unknown dtype '{}'", name, dtype.get<std::string>());
  e.dtype = *t;
  const json& shape = j["shape"];
  if (!shape.is_array()) r.fail("tensor '{}': shape is {}, not an array", name, shape.dump());
  // The byte size, with each product checked: a hostile shape must not wrap around.
  std::uint64_t bytes = itemsize(e.dtype);
  for (const json& d : shape) {
    const std::uint64_t n = unsigned_of(d, r, name, "shape");
    if (n > std::uint64_t(INT64_MAX) || __builtin_mul_overflow(bytes, n, &bytes))
      r.fail("tensor '{}': shape {} has more bytes than 64 bits count", name, shape.dump());
    e.shape.push_back(std::int64_t(n));
  }
  const json& offsets = j["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2)
    r.fail("tensor '{}': data_offsets is {}, not [begin, end]", name, offsets.dump());
  e.begin = unsigned_of(offsets[0], r, name, "data_offsets");
  e.end = unsigned_of(offsets[1], r, name, "data_offsets");
  if (e.end < e.begin) r.fail("tensor '{}': data_offsets [{}, {}] end before they begin", name, e.begin, e.end);
  if (e.end - e.begin != bytes)
    r.fail("tensor '{}': {} {} takes {} bytes, but data_offsets [{}, {}] hold {}", name, dtype.get<std::string>(),
           shape.dump(), bytes, e.begin, e.end, e.end - e.begin);
  return e;
}

Metadata metadata_of(const json& j, const Reporter& r) {
  if (!j.is_object()) r.fail("__metadata__ is {}, not an object", j.type_name());
  Metadata m;
  for (const auto& [key, value] : j.items()) {
    if (!value.is_string()) r.fail("__metadata__ entry '{}' is {}, not a string", key, value.dump());
    m.emplace(key, value.get<std::string>());
  }
  return m;
}

SafeTensors parse(std::span<const std::uint8_t> bytes, const Reporter& r) {
  if (bytes.size() < 8) r.fail("{} bytes, shorter than the 8-byte header size", bytes.size());
  std::uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);  // little-endian, as the host (checked where we write)
  if (n > safetensors_max_header_bytes)
    r.fail("the header size {} is over the limit of {} bytes", n, safetensors_max_header_bytes);
  if (n > bytes.size() - 8) r.fail("the header size {} runs past the end of the file ({} bytes)", n, bytes.size());
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()) + 8, std::size_t(n));
  if (auto at = io::invalid_utf8_at(text)) r.fail("the header is not valid UTF-8 (byte {} of it)", *at);
  // The format requires '{' first (no leading whitespace), so the header is an object.
  if (text.empty() || text.front() != '{') r.fail("the header does not begin with '{{'");
  const json header = parse_header(text, r);

  SafeTensors out;
  std::vector<Entry> entries;
  for (const auto& [key, value] : header.items()) {
    if (key == "__metadata__") out.metadata = metadata_of(value, r);
    else entries.push_back(entry_of(key, value, r));
  }
  // The byte ranges, in order, must tile the data: each starts where the last ended.
  // A stable sort keeps header order among empty tensors that share an offset.
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.begin != b.begin ? a.begin < b.begin : a.end < b.end; });
  const std::uint64_t data_size = bytes.size() - 8 - n;
  std::uint64_t expected = 0;
  const Entry* previous = nullptr;
  for (const Entry& e : entries) {
    if (e.begin < expected)
      r.fail("tensor '{}' at bytes [{}, {}] overlaps tensor '{}' ending at {}", e.name, e.begin, e.end,
             previous->name, expected);
    if (e.begin > expected)
      r.fail("a gap of {} bytes before tensor '{}' at bytes [{}, {}]", e.begin - expected, e.name, e.begin, e.end);
    if (e.end > data_size)
      r.fail("tensor '{}' at bytes [{}, {}] runs past the end of the data ({} bytes)", e.name, e.begin, e.end,
             data_size);
    expected = e.end;
    previous = &e;
  }
  if (expected != data_size) r.fail("{} trailing bytes after the last tensor", data_size - expected);

  const std::uint8_t* data = bytes.data() + 8 + n;
  for (const Entry& e : entries) {
    const std::size_t size = std::size_t(e.end - e.begin);
    if (e.dtype == DType::boolean)  // any other byte would be an invalid C++ bool
      for (std::size_t i = 0; i < size; ++i)
        if (data[e.begin + i] > 1) r.fail("tensor '{}' (BOOL) holds the byte {} at element {}", e.name, data[e.begin + i], i);
    Tensor t = tlaloc::detail::empty(e.shape, e.dtype);
    if (size > 0) std::memcpy(t.impl().data(), data + e.begin, size);
    out.tensors.set(e.name, std::move(t));
  }
  return out;
}

}  // namespace

SafeTensors from_safetensors(std::span<const std::uint8_t> bytes, std::string_view source) {
  return parse(bytes, Reporter{"tl::nn::from_safetensors", source});
}

SafeTensors load_safetensors(const std::filesystem::path& path) {
  constexpr std::string_view who = "tl::nn::load_safetensors";
  const std::string name = path.string();
  auto io_fail = [&](std::string_view what, int err) {
    throw IOError(fmt::format("{}: {}: {}: {}", who, name, what, std::strerror(err)));
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) io_fail("cannot open", errno);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st{};
  if (::fstat(fd, &st) != 0) io_fail("cannot stat", errno);
  if (!S_ISREG(st.st_mode)) throw IOError(fmt::format("{}: {}: not a regular file", who, name));
  std::vector<std::uint8_t> bytes(std::size_t(st.st_size));
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) io_fail("cannot read", errno);
    if (n == 0) break;  // the file shrank while we read it: parse what is there
    got += std::size_t(n);
  }
  bytes.resize(got);
  return parse(bytes, Reporter{who, name});
}

}  // namespace tlaloc::nn
