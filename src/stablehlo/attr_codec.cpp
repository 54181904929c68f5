// Attribute values between their MLIR text and detail::Attrs, by kind.
#include <fmt/format.h>

#include <cstdint>

#include "stablehlo/struct_attrs.hpp"
#include "stablehlo/syntax.hpp"

namespace tlaloc::stablehlo {
namespace {

using Kind = StableHloAttr::Kind;

std::string int_list(const std::vector<std::int64_t>& v) { return fmt::format("{}", fmt::join(v, ", ")); }

std::string escape(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (ch == '\n') {
      out += "\\n";
      continue;
    }
    out += ch;
  }
  return out + "\"";
}

std::int64_t node_int(const AttrNode& n, Cursor& c) {
  if (n.kind != AttrNode::Kind::integer) c.fail_at(n.pos, "expected an integer attribute");
  return int_value(n, c);
}

std::vector<std::int64_t> node_ints(const AttrNode& n, Cursor& c) {
  std::vector<std::int64_t> v;
  if (n.kind == AttrNode::Kind::dense_array || n.kind == AttrNode::Kind::array) {
    for (const AttrNode& item : n.items) v.push_back(node_int(item, c));
  } else if (n.kind == AttrNode::Kind::dense) {
    if (is_floating(n.value.dtype()) || n.value.dtype() == DType::boolean)
      c.fail_at(n.pos, "expected integer elements");
    v = n.value.astype(DType::i64).to_vector<std::int64_t>();
  } else {
    c.fail_at(n.pos, "expected a list of integers");
  }
  return v;
}

// A dictionary's text as written, with each run of whitespace outside strings
// made one space so that the op stays on one line.
std::string dictionary_text(const AttrNode& n, Cursor& c) {
  if (n.kind != AttrNode::Kind::dict || n.pos >= n.end || n.end > c.text().size() || c.text()[n.pos] != '{')
    c.fail_at(n.pos, "expected a dictionary such as {a = 1}");
  const std::string_view raw = c.text().substr(n.pos, n.end - n.pos);
  if (raw.find("//") != std::string_view::npos) c.fail_at(n.pos, "comments inside a dictionary are not kept");
  std::string out;
  bool quoted = false, space = false;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const char ch = raw[i];
    if (!quoted && (ch == ' ' || ch == '\n' || ch == '\t' || ch == '\r')) {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += ch;
    if (quoted && ch == '\\' && i + 1 < raw.size())
      out += raw[++i];
    else if (ch == '"')
      quoted = !quoted;
  }
  return out;
}

// `[[@a, @b], [@c, @d]]`: the names row-major, every row as long as the first.
void decode_symbol_grid(const StableHloAttr& a, const AttrNode& n, detail::Attrs& out, Cursor& c) {
  std::vector<std::string> names;
  std::size_t width = 0;
  if (n.kind != AttrNode::Kind::array || n.items.empty())
    c.fail_at(n.pos, fmt::format("'{}' must be a list of rows of symbols such as [[@a, @b]]", a.name));
  for (const AttrNode& row : n.items) {
    if (row.kind != AttrNode::Kind::array || row.items.empty())
      c.fail_at(row.pos, fmt::format("each row of '{}' must be a list of symbols such as [@a, @b]", a.name));
    if (width == 0) width = row.items.size();
    if (row.items.size() != width)
      c.fail_at(row.pos, fmt::format("the rows of '{}' must be of one length, {}", a.name, width));
    for (const AttrNode& item : row.items) {
      if (item.kind != AttrNode::Kind::symbol) c.fail_at(item.pos, "expected a symbol such as @f");
      names.push_back(item.text);
    }
  }
  out.set(a.key, names);
  out.set(a.key + ".partitions", std::int64_t(width));
}

std::string symbol_grid_text(const StableHloAttr& a, const detail::Attrs& attrs) {
  const auto& names = attrs.get<std::vector<std::string>>(a.key);
  const auto width = std::size_t(attrs.get<std::int64_t>(a.key + ".partitions"));
  std::string rows;
  for (std::size_t i = 0; i < names.size(); ++i)
    rows += fmt::format("{}@{}{}", i % width == 0 ? (i == 0 ? "[" : "], [") : ", ", names[i],
                        i + 1 == names.size() ? "]" : "");
  return "[" + rows + "]";
}

void decode_channel_handle(const StableHloAttr& a, const AttrNode& n, detail::Attrs& out, Cursor& c) {
  if (n.kind != AttrNode::Kind::dialect || n.text != "channel_handle")
    c.fail_at(n.pos, fmt::format("'{}' must be #stablehlo.channel_handle<handle = 1, type = 0>", a.name));
  out.set("channel_id", std::int64_t{0});
  out.set("channel_type", std::int64_t{0});
  for (const auto& [key, value] : parse_fields(n, c)) {
    if (key != "handle" && key != "type")
      c.fail_at(value.pos, fmt::format("#stablehlo.channel_handle has no field '{}'", key));
    out.set(key == "handle" ? "channel_id" : "channel_type", node_int(value, c));
  }
}

std::string enum_word(const StableHloAttr& a, const AttrNode& n, Cursor& c) {
  if (n.kind != AttrNode::Kind::dialect || n.text != a.mlir_enum)
    c.fail_at(n.pos, fmt::format("expected #stablehlo<{} ...> for '{}'", a.mlir_enum, a.name));
  return n.word;
}

}  // namespace

bool attr_present(const StableHloAttr& a, const detail::Attrs& attrs) {
  switch (a.kind) {
    case Kind::dot_dimension_numbers:
    case Kind::dot_algorithm:
    case Kind::gather_dimension_numbers:
    case Kind::scatter_dimension_numbers:
    case Kind::conv_dimension_numbers:
      return struct_attr_present(a, attrs);
    case Kind::result_shape:
    case Kind::result_dtype:
      return false;  // never written
    case Kind::channel_handle:
      return attrs.has("channel_id");
    case Kind::unit:
      return attrs.has(a.key) && attrs.get<bool>(a.key);
    default:
      return attrs.has(a.key);
  }
}

std::string attr_entry(const StableHloAttr& a, const detail::Attrs& attrs) {
  if (a.kind == Kind::unit) return a.name;
  return a.name + " = " + attr_text(a, attrs);
}

std::string attr_text(const StableHloAttr& a, const detail::Attrs& attrs) {
  switch (a.kind) {
    case Kind::i64:
      return fmt::format("{} : i64", attrs.get<std::int64_t>(a.key));
    case Kind::i32:
      return fmt::format("{} : i32", attrs.get<std::int64_t>(a.key));
    case Kind::dictionary:
      return attrs.get<std::string>(a.key);
    case Kind::i64_array: {
      const auto& v = attrs.get<std::vector<std::int64_t>>(a.key);
      return v.empty() ? "array<i64>" : fmt::format("array<i64: {}>", int_list(v));
    }
    case Kind::i64_elements: {
      const auto& v = attrs.get<std::vector<std::int64_t>>(a.key);
      return fmt::format("dense<[{}]> : tensor<{}xi64>", int_list(v), v.size());
    }
    case Kind::i64_matrix: {
      const auto& v = attrs.get<std::vector<std::int64_t>>(a.key);
      std::string rows;
      for (std::size_t i = 0; i + 1 < v.size(); i += 2)
        rows += fmt::format("{}[{}, {}]", i ? ", " : "", v[i], v[i + 1]);
      return fmt::format("dense<[{}]> : tensor<{}x2xi64>", rows, v.size() / 2);
    }
    case Kind::bool_array: {
      const auto& v = attrs.get<std::vector<std::int64_t>>(a.key);
      std::string s;
      for (std::size_t i = 0; i < v.size(); ++i)
        s += fmt::format("{}{}", i ? ", " : "", v[i] ? "true" : "false");
      return v.empty() ? "array<i1>" : fmt::format("array<i1: {}>", s);
    }
    case Kind::boolean:
      return attrs.get<bool>(a.key) ? "true" : "false";
    case Kind::unit:
      return "unit";
    case Kind::symbol_grid:
      return symbol_grid_text(a, attrs);
    case Kind::symbol_list: {
      std::string s;
      for (const std::string& name : attrs.get<std::vector<std::string>>(a.key))
        s += fmt::format("{}@{}", s.empty() ? "" : ", ", name);
      return "[" + s + "]";
    }
    case Kind::channel_handle:
      return fmt::format("#stablehlo.channel_handle<handle = {}, type = {}>",
                         attrs.get<std::int64_t>("channel_id"), attrs.get<std::int64_t>("channel_type"));
    case Kind::f32:
      return float_text(attrs.get<double>(a.key), DType::f32) + " : f32";
    case Kind::string:
      return escape(attrs.get<std::string>(a.key));
    case Kind::symbol:
      return "@" + attrs.get<std::string>(a.key);
    case Kind::enum_value:
      return fmt::format("#stablehlo<{} {}>", a.mlir_enum, attrs.get<std::string>(a.key));
    case Kind::elements: {
      const Tensor& t = attrs.get<Tensor>(a.key);
      return dense_text(t) + " : " + type_text({t.dtype(), t.shape()});
    }
    case Kind::precision_list: {
      std::string s;
      for (const std::string& p : attrs.get<std::vector<std::string>>(a.key))
        s += fmt::format("{}#stablehlo<precision {}>", s.empty() ? "" : ", ", p);
      return "[" + s + "]";
    }
    default:
      return struct_attr_text(a, attrs);
  }
}

void decode_attr(const StableHloAttr& a, const AttrNode& n, detail::Attrs& out, Cursor& c) {
  switch (a.kind) {
    case Kind::i64:
      out.set(a.key, node_int(n, c));
      return;
    case Kind::i32: {
      const std::int64_t v = node_int(n, c);
      if (v < INT32_MIN || v > INT32_MAX) c.fail_at(n.pos, fmt::format("'{}' must fit in i32", a.name));
      out.set(a.key, v);
      return;
    }
    case Kind::dictionary:
      out.set(a.key, dictionary_text(n, c));
      return;
    case Kind::i64_array:
    case Kind::i64_elements:
      out.set(a.key, node_ints(n, c));
      return;
    case Kind::i64_matrix: {
      if (n.kind == AttrNode::Kind::dense && (n.value.rank() != 2 || n.value.shape()[1] != 2))
        c.fail_at(n.pos, fmt::format("'{}' must be an N x 2 matrix", a.name));
      out.set(a.key, node_ints(n, c));
      return;
    }
    case Kind::bool_array: {
      std::vector<std::int64_t> v;
      if (n.kind != AttrNode::Kind::dense_array && n.kind != AttrNode::Kind::array)
        c.fail_at(n.pos, fmt::format("'{}' must be an array of booleans", a.name));
      for (const AttrNode& item : n.items) {
        if (item.kind == AttrNode::Kind::boolean)
          v.push_back(item.text == "true");
        else
          v.push_back(node_int(item, c) != 0);
      }
      out.set(a.key, v);
      return;
    }
    case Kind::unit:
    case Kind::boolean:
      if (n.kind == AttrNode::Kind::unit)
        out.set(a.key, true);
      else if (n.kind == AttrNode::Kind::boolean)
        out.set(a.key, n.text == "true");
      else
        c.fail_at(n.pos, fmt::format("'{}' must be true or false", a.name));
      return;
    case Kind::f32:
      if (n.kind != AttrNode::Kind::floating && n.kind != AttrNode::Kind::integer)
        c.fail_at(n.pos, fmt::format("'{}' must be a number", a.name));
      out.set(a.key, std::strtod(n.text.c_str(), nullptr));
      return;
    case Kind::string:
      if (n.kind != AttrNode::Kind::string) c.fail_at(n.pos, fmt::format("'{}' must be a string", a.name));
      out.set(a.key, n.text);
      return;
    case Kind::symbol:
      if (n.kind != AttrNode::Kind::symbol && n.kind != AttrNode::Kind::string)
        c.fail_at(n.pos, fmt::format("'{}' must be a symbol such as @f", a.name));
      out.set(a.key, n.text);
      return;
    case Kind::enum_value:
      out.set(a.key, enum_word(a, n, c));
      return;
    case Kind::elements:
      if (n.kind != AttrNode::Kind::dense)
        c.fail_at(n.pos, fmt::format("'{}' must be dense<...> : tensor<...>", a.name));
      out.set(a.key, n.value);
      return;
    case Kind::symbol_grid:
      decode_symbol_grid(a, n, out, c);
      return;
    case Kind::symbol_list: {
      if (n.kind != AttrNode::Kind::array)
        c.fail_at(n.pos, fmt::format("'{}' must be a list of symbols such as [@a, @b]", a.name));
      std::vector<std::string> names;
      for (const AttrNode& item : n.items) {
        if (item.kind != AttrNode::Kind::symbol) c.fail_at(item.pos, "expected a symbol such as @f");
        names.push_back(item.text);
      }
      out.set(a.key, names);
      return;
    }
    case Kind::channel_handle:
      decode_channel_handle(a, n, out, c);
      return;
    case Kind::precision_list: {
      if (n.kind != AttrNode::Kind::array) c.fail_at(n.pos, "precision_config must be a list");
      std::vector<std::string> v;
      for (const AttrNode& item : n.items)
        v.push_back(enum_word(StableHloAttr("precision", Kind::enum_value).of_enum("precision"), item, c));
      out.set(a.key, v);
      return;
    }
    default:
      decode_struct_attr(a, n, out, c);
      return;
  }
}

}  // namespace tlaloc::stablehlo

namespace tlaloc::stablehlo {

void set_implied_attrs(const StableHloSpelling& s, const std::vector<TensorType>& results,
                       detail::Attrs& out) {
  for (const StableHloAttr& a : s.attrs) {
    if (!implied(a)) continue;
    const std::size_t r = std::size_t(a.result);
    if (results.size() <= r) throw Error(fmt::format("{} needs {} result types", s.name, r + 1));
    if (a.kind == StableHloAttr::Kind::result_shape)
      out.set(a.key, results[r].shape);
    else
      out.set(a.key, results[r].dtype);
  }
}

std::string prefixed_dict_text(const detail::Attrs& attrs, std::string_view prefix) {
  std::string fields;
  for (const auto& [key, value] : attrs.items()) {
    if (!key.starts_with(prefix)) continue;
    std::string text;
    if (const auto* b = std::get_if<bool>(&value))
      text = *b ? "true" : "false";
    else if (const auto* i = std::get_if<std::int64_t>(&value))
      text = fmt::format("{} : i64", *i);
    else if (const auto* d = std::get_if<double>(&value))
      text = float_text(*d, DType::f64) + " : f64";
    else if (const auto* str = std::get_if<std::string>(&value))
      text = escape(*str);
    else
      throw Error(fmt::format("attribute '{}' has no StableHLO form in a dictionary", key));
    fields += fmt::format("{}{} = {}", fields.empty() ? "" : ", ", key.substr(prefix.size()), text);
  }
  return fields.empty() ? "" : "{" + fields + "}";
}

void decode_prefixed_dict(const AttrNode& dict, std::string_view prefix, detail::Attrs& out, Cursor& c) {
  for (std::size_t k = 0; k < dict.field_names.size(); ++k) {
    const AttrNode& n = dict.field_values[k];
    const std::string key = std::string(prefix) + dict.field_names[k];
    switch (n.kind) {
      case AttrNode::Kind::integer:
        out.set(key, int_value(n, c));
        break;
      case AttrNode::Kind::floating:
        out.set(key, std::strtod(n.text.c_str(), nullptr));
        break;
      case AttrNode::Kind::boolean:
        out.set(key, n.text == "true");
        break;
      case AttrNode::Kind::string:
        out.set(key, n.text);
        break;
      default:
        c.fail_at(n.pos,
                  fmt::format("'{}': only integer, float, boolean and string values are supported here",
                              dict.field_names[k]));
    }
  }
}

}  // namespace tlaloc::stablehlo
