#include "serve/manifest.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/sha256.hpp"

namespace tlaloc::serve::detail {

using nlohmann::json;

namespace {

constexpr const char* kFormat = "tlaloc-artifact";
constexpr int kMaxDepth = 64;

[[noreturn]] void bad(const std::string& file, const std::string& what) {
  throw ArtifactError(fmt::format("tl::serve::Model::load: {}: {}", file, what));
}

// The member `key` of `j`, which must exist and have the JSON type `is`.
template <class Is>
const json& field(const json& j, const char* key, Is is, const char* kind, const std::string& file,
                  const std::string& where) {
  if (!j.is_object() || !j.contains(key)) bad(file, fmt::format("{}has no \"{}\"", where, key));
  const json& v = j.at(key);
  if (!(v.*is)()) bad(file, fmt::format("{}\"{}\" is not {}", where, key, kind));
  return v;
}

DType dtype_named(const std::string& name, const std::string& file, const std::string& where) {
  for (const auto& kinds : {std::span<const DType>(all_dtypes), std::span<const DType>(complex_dtypes),
                            std::span<const DType>(narrow_dtypes)})
    for (DType t : kinds)
      if (dtype_name(t) == name) return t;
  bad(file, fmt::format("{}unknown dtype \"{}\"", where, name));
}

json spec_json(const TensorSpec& s) {
  json j{{"name", s.name}, {"dtype", dtype_name(s.dtype)}, {"shape", s.shape}};
  if (s.range) j["range"] = {s.range->min, s.range->max};
  if (!s.dims.empty()) j["dims"] = s.dims;
  return j;
}

// An integer member of `j` that is a size (>= 0, 64 bits).
std::int64_t size_from(const json& v, const std::string& file, const std::string& what) {
  if (!v.is_number_integer() ||
      (v.is_number_unsigned() && v.get<std::uint64_t>() > std::uint64_t(INT64_MAX)) ||
      v.get<std::int64_t>() < 0)
    bad(file, what + " holds a non-size");
  return v.get<std::int64_t>();
}

// An input's optional "range": [min, max], integers, min <= max, on an integer input.
std::optional<ValueRange> range_from(const json& s, const TensorSpec& t, const std::string& file,
                                     const std::string& at) {
  if (!s.contains("range")) return std::nullopt;
  const json& r = s.at("range");
  if (!r.is_array() || r.size() != 2 || !r[0].is_number_integer() || !r[1].is_number_integer() ||
      (r[0].is_number_unsigned() && r[0].get<std::uint64_t>() > std::uint64_t(INT64_MAX)) ||
      (r[1].is_number_unsigned() && r[1].get<std::uint64_t>() > std::uint64_t(INT64_MAX)))
    bad(file, at + "\"range\" is not [min, max] (two 64-bit integers)");
  const ValueRange v{r[0].get<std::int64_t>(), r[1].get<std::int64_t>()};
  if (v.min > v.max || !is_integral(t.dtype))
    bad(file, fmt::format("{}\"range\" [{}, {}] needs min <= max and an integer tensor", at, v.min, v.max));
  return v;
}

std::vector<TensorSpec> specs_from(const json& list, const std::string& file, const std::string& where) {
  std::vector<TensorSpec> out;
  for (const json& s : list) {
    TensorSpec t;
    t.name = field(s, "name", &json::is_string, "a string", file, where).get<std::string>();
    const std::string at = fmt::format("{}{} '{}': ", where, "tensor", t.name);
    t.dtype = dtype_named(field(s, "dtype", &json::is_string, "a string", file, at).get<std::string>(), file, at);
    for (const json& d : field(s, "shape", &json::is_array, "an array", file, at))
      t.shape.push_back(size_from(d, file, at + "shape"));
    t.range = range_from(s, t, file, at);
    if (s.contains("dims")) {
      for (const json& d : field(s, "dims", &json::is_array, "an array", file, at)) {
        if (!d.is_string()) bad(file, at + "\"dims\" holds a non-string");
        t.dims.push_back(d.get<std::string>());
      }
      if (t.dims.size() != t.shape.size())
        bad(file, fmt::format("{}\"dims\" has {} axes, the shape {}", at, t.dims.size(), t.shape.size()));
    }
    out.push_back(std::move(t));
  }
  return out;
}

HashedFile hashed_from(const json& j, const char* path_key, const std::string& file, const std::string& where) {
  HashedFile h{field(j, path_key, &json::is_string, "a string", file, where).get<std::string>(),
               field(j, "sha256", &json::is_string, "a string", file, where).get<std::string>()};
  const std::filesystem::path p(h.path);
  if (p.is_absolute() || h.path.find("..") != std::string::npos || h.path.empty())
    bad(file, fmt::format("{}path \"{}\" leaves the artifact directory", where, h.path));
  // A NUL would end the name the system opens ("weights.safetensors\u0000junk").
  if (std::any_of(h.path.begin(), h.path.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
    bad(file, fmt::format("{}path {} holds a control character", where, json(h.path).dump()));
  if (h.sha256.size() != 64 || h.sha256.find_first_not_of("0123456789abcdef") != std::string::npos)
    bad(file, fmt::format("{}\"{}\" is not a hex SHA-256", where, h.sha256));
  return h;
}

// A bounded dimension's "name", "bound" and "ladder" (ascending, from 1, ending at
// the bound).
BoundedDim dim_from(const json& d, const std::string& file, const std::string& where) {
  BoundedDim out;
  out.name = field(d, "name", &json::is_string, "a string", file, where).get<std::string>();
  const std::string at = fmt::format("{}dimension '{}': ", where, out.name);
  out.bound =
      size_from(field(d, "bound", &json::is_number_integer, "an integer", file, at), file, at + "bound");
  for (const json& n : field(d, "ladder", &json::is_array, "an array", file, at))
    out.ladder.push_back(size_from(n, file, at + "ladder"));
  for (std::size_t i = 0; i < out.ladder.size(); ++i)
    if (out.ladder[i] < 1 || (i > 0 && out.ladder[i] <= out.ladder[i - 1]))
      bad(file, at + "the ladder does not ascend strictly from 1");
  if (out.name.empty() || out.ladder.empty() || out.ladder.back() != out.bound)
    bad(file, at + "needs a name and a ladder ending at its bound");
  return out;
}

// Each spec's dims against the entry's bounded dimensions: declared names, and the
// bound on a bounded axis.
void check_spec_dims(const EntryPoint& e, const std::string& file, const std::string& where) {
  for (const std::vector<TensorSpec>* specs : {&e.inputs, &e.outputs})
    for (const TensorSpec& s : *specs)
      for (std::size_t a = 0; a < s.dims.size(); ++a) {
        if (s.dims[a].empty()) continue;
        const auto d = std::find_if(e.bounded.begin(), e.bounded.end(),
                                    [&](const BoundedDim& b) { return b.name == s.dims[a]; });
        if (d == e.bounded.end() || d->bound != s.shape[a])
          bad(file,
              fmt::format("{}tensor '{}' axis {} names '{}', which is not a bounded dimension of size {}",
                          where, s.name, a, s.dims[a], s.shape[a]));
      }
}

// A version 3 entry's "bounded" dimensions and "buckets": every bucket but the one at
// the bounds (which is "program"), in the ladders' order.
std::vector<BucketProgram> bounded_from(const json& e, EntryPoint& ep, int version, const std::string& file,
                                        const std::string& where) {
  const bool has = e.contains("bounded") || e.contains("buckets");
  if (has && version < 3) bad(file, where + "\"bounded\" needs schema version 3");
  if (has)
    for (const json& d : field(e, "bounded", &json::is_array, "an array", file, where)) {
      ep.bounded.push_back(dim_from(d, file, where));
      for (std::size_t k = 0; k + 1 < ep.bounded.size(); ++k)
        if (ep.bounded[k].name == ep.bounded.back().name)
          bad(file, fmt::format("{}dimension '{}' is listed twice", where, ep.bounded.back().name));
    }
  check_spec_dims(ep, file, where);
  std::vector<BucketProgram> out;
  if (ep.bounded.empty()) return out;
  std::vector<std::vector<std::int64_t>> want = all_buckets(ep.bounded);
  want.pop_back();
  const json& list = field(e, "buckets", &json::is_array, "an array", file, where);
  if (list.size() != want.size())
    bad(file,
        fmt::format("{}lists {} bucket programs, its ladders make {}", where, list.size(), want.size()));
  for (std::size_t i = 0; i < want.size(); ++i) {
    BucketProgram b{{}, hashed_from(list[i], "program", file, where)};
    for (const json& n : field(list[i], "sizes", &json::is_array, "an array", file, where))
      b.sizes.push_back(size_from(n, file, where + "bucket sizes"));
    if (b.sizes != want[i])
      bad(file, fmt::format("{}bucket {} is [{}], its ladders say [{}]", where, i, fmt::join(b.sizes, ", "),
                            fmt::join(want[i], ", ")));
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace

std::string program_path(const std::string& entry) { return "programs/" + entry + ".mlir"; }

std::string program_path(const std::string& entry, const std::vector<BoundedDim>& dims,
                         const std::vector<std::int64_t>& sizes) {
  std::string path = "programs/" + entry;
  for (std::size_t k = 0; k < dims.size(); ++k) path += fmt::format(".{}-{}", dims[k].name, sizes.at(k));
  return path + ".mlir";
}

std::vector<std::vector<std::int64_t>> all_buckets(const std::vector<BoundedDim>& dims) {
  std::vector<std::vector<std::int64_t>> out{{}};
  for (const BoundedDim& d : dims) {
    std::vector<std::vector<std::int64_t>> next;
    for (const std::vector<std::int64_t>& b : out)
      for (std::int64_t n : d.ladder) {
        next.push_back(b);
        next.back().push_back(n);
      }
    out = std::move(next);
  }
  return out;
}

void check_entry_name(const std::string& name, const char* who) {
  if (name.empty() || name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
                          std::string::npos)
    throw ValueError(fmt::format("{}: entry point name \"{}\" must be letters, digits, '_' or '-'", who, name));
}

namespace {

std::string files_only_hash(const Manifest& m) {
  std::string lines = m.weights.path + " " + m.weights.sha256 + "\n";
  for (const HashedFile& p : m.programs) lines += p.path + " " + p.sha256 + "\n";
  return io::sha256_hex(lines);
}

// Each field is its length in bytes, ':', its bytes and a newline, so that no name,
// whatever it holds, reads as two fields.
void add_field(std::string& text, std::string_view field) {
  text += fmt::format("{}:{}\n", field.size(), field);
}

void add_specs(std::string& text, const std::vector<TensorSpec>& specs) {
  add_field(text, std::to_string(specs.size()));
  for (const TensorSpec& s : specs) {
    add_field(text, s.name);
    add_field(text, dtype_name(s.dtype));
    add_field(text, fmt::format("{}", fmt::join(s.shape, ",")));
    add_field(text, s.range ? fmt::format("{},{}", s.range->min, s.range->max) : std::string());
  }
}

// Version 3's additions: each spec's dims, the bounded dimensions, the bucket programs.
void add_bounded(std::string& text, const EntryPoint& e, const std::vector<BucketProgram>& buckets) {
  for (const std::vector<TensorSpec>* specs : {&e.inputs, &e.outputs})
    for (const TensorSpec& s : *specs) add_field(text, fmt::format("{}", fmt::join(s.dims, ",")));
  add_field(text, std::to_string(e.bounded.size()));
  for (const BoundedDim& d : e.bounded) {
    add_field(text, d.name);
    add_field(text, std::to_string(d.bound));
    add_field(text, fmt::format("{}", fmt::join(d.ladder, ",")));
  }
  add_field(text, std::to_string(buckets.size()));
  for (const BucketProgram& b : buckets) {
    add_field(text, fmt::format("{}", fmt::join(b.sizes, ",")));
    add_field(text, b.file.path);
    add_field(text, b.file.sha256);
  }
}

}  // namespace

std::string content_hash(const Manifest& m) {
  if (m.version == 1) return files_only_hash(m);
  std::string text = fmt::format("tlaloc-artifact content {}\n", m.version);
  add_field(text, m.weights.path);
  add_field(text, m.weights.sha256);
  for (std::size_t i = 0; i < m.entries.size(); ++i) {
    const EntryPoint& e = m.entries[i];
    add_field(text, e.name);
    add_field(text, m.programs[i].path);
    add_field(text, m.programs[i].sha256);
    add_field(text, std::to_string(e.weights.size()));
    for (const std::string& w : e.weights) add_field(text, w);
    add_specs(text, e.inputs);
    add_specs(text, e.outputs);
    if (m.version >= 3) add_bounded(text, e, m.buckets.at(i));
  }
  return io::sha256_hex(text);
}

std::string to_json(const Manifest& m) {
  json entries = json::array();
  for (std::size_t i = 0; i < m.entries.size(); ++i) {
    const EntryPoint& e = m.entries[i];
    json inputs = json::array(), outputs = json::array();
    for (const TensorSpec& s : e.inputs) inputs.push_back(spec_json(s));
    for (const TensorSpec& s : e.outputs) outputs.push_back(spec_json(s));
    json entry{{"name", e.name},
               {"program", m.programs[i].path},
               {"sha256", m.programs[i].sha256},
               {"weights", e.weights},
               {"inputs", inputs},
               {"outputs", outputs}};
    if (!e.bounded.empty()) {
      json dims = json::array(), buckets = json::array();
      for (const BoundedDim& d : e.bounded)
        dims.push_back({{"name", d.name}, {"bound", d.bound}, {"ladder", d.ladder}});
      for (const BucketProgram& b : m.buckets.at(i))
        buckets.push_back({{"sizes", b.sizes}, {"program", b.file.path}, {"sha256", b.file.sha256}});
      entry["bounded"] = dims;
      entry["buckets"] = buckets;
    }
    entries.push_back(entry);
  }
  const json j{{"format", kFormat},
               {"schema_version", m.version},
               {"content_hash", m.content_hash},
               {"weights", {{"file", m.weights.path}, {"sha256", m.weights.sha256}}},
               {"entry_points", entries}};
  return j.dump(2) + "\n";
}

Manifest manifest_from_json(const std::string& text, const std::string& file) {
  // JSON text holds no NUL byte; a parser that stops at one would accept what follows.
  if (const std::size_t at = text.find('\0'); at != std::string::npos)
    bad(file, fmt::format("not valid JSON (a NUL byte at offset {})", at));
  // A manifest nests five levels; deeper nesting is refused while it is parsed, as the
  // Python loader refuses it.
  const auto shallow = [&](int depth, json::parse_event_t event, json&) {
    const bool opens =
        event == json::parse_event_t::object_start || event == json::parse_event_t::array_start;
    if (opens && depth >= kMaxDepth)
      bad(file, fmt::format("not valid JSON (it nests deeper than {} levels)", kMaxDepth));
    return true;
  };
  json j;
  try {
    j = json::parse(text, shallow);
  } catch (const json::exception& e) {
    bad(file, fmt::format("not valid JSON ({})", e.what()));
  }
  if (field(j, "format", &json::is_string, "a string", file, "") != kFormat)
    bad(file, fmt::format("\"format\" is not \"{}\"", kFormat));
  Manifest m;
  // Compared as JSON numbers: 4294967297 is not 1 narrowed.
  const json& version = field(j, "schema_version", &json::is_number_integer, "an integer", file, "");
  if (version != json(1) && version != json(2) && version != json(schema_version))
    bad(file, fmt::format("unknown schema version {} (this build reads versions 1 to {})", version.dump(),
                          schema_version));
  m.version = version.get<int>();
  m.content_hash = field(j, "content_hash", &json::is_string, "a string", file, "").get<std::string>();
  m.weights = hashed_from(field(j, "weights", &json::is_object, "an object", file, ""), "file", file, "weights: ");
  for (const json& e : field(j, "entry_points", &json::is_array, "an array", file, "")) {
    EntryPoint ep;
    ep.name = field(e, "name", &json::is_string, "a string", file, "entry point: ").get<std::string>();
    const std::string where = fmt::format("entry point '{}': ", ep.name);
    m.programs.push_back(hashed_from(e, "program", file, where));
    for (const json& w : field(e, "weights", &json::is_array, "an array", file, where)) {
      if (!w.is_string()) bad(file, where + "\"weights\" holds a non-string");
      ep.weights.push_back(w.get<std::string>());
    }
    ep.inputs = specs_from(field(e, "inputs", &json::is_array, "an array", file, where), file, where);
    ep.outputs = specs_from(field(e, "outputs", &json::is_array, "an array", file, where), file, where);
    m.buckets.push_back(bounded_from(e, ep, m.version, file, where));
    m.entries.push_back(std::move(ep));
  }
  return m;
}

}  // namespace tlaloc::serve::detail
