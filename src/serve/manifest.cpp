#include "serve/manifest.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <optional>
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
  for (DType t : all_dtypes)
    if (dtype_name(t) == name) return t;
  bad(file, fmt::format("{}unknown dtype \"{}\"", where, name));
}

json spec_json(const TensorSpec& s) {
  json j{{"name", s.name}, {"dtype", dtype_name(s.dtype)}, {"shape", s.shape}};
  if (s.range) j["range"] = {s.range->min, s.range->max};
  return j;
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
    for (const json& d : field(s, "shape", &json::is_array, "an array", file, at)) {
      if (!d.is_number_integer() || d.get<std::int64_t>() < 0) bad(file, at + "shape holds a non-size");
      t.shape.push_back(d.get<std::int64_t>());
    }
    t.range = range_from(s, t, file, at);
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

}  // namespace

std::string program_path(const std::string& entry) { return "programs/" + entry + ".mlir"; }

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

}  // namespace

std::string content_hash(const Manifest& m) {
  if (m.version == 1) return files_only_hash(m);
  std::string text = "tlaloc-artifact content 2\n";
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
    entries.push_back({{"name", e.name}, {"program", m.programs[i].path}, {"sha256", m.programs[i].sha256},
                       {"weights", e.weights}, {"inputs", inputs}, {"outputs", outputs}});
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
  if (version != json(1) && version != json(schema_version))
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
    m.entries.push_back(std::move(ep));
  }
  return m;
}

}  // namespace tlaloc::serve::detail
