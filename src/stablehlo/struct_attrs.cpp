#include "stablehlo/struct_attrs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <span>

namespace tlaloc::stablehlo {
namespace {

using Kind = StableHloAttr::Kind;
using Ints = std::vector<std::int64_t>;

// One field of a #stablehlo.name<...> attribute, in the order MLIR prints them.
struct Field {
  const char* name;
  bool is_list;  // else a single integer (index_vector_dim)
};

constexpr Field kGatherFields[] = {{"offset_dims", true},           {"collapsed_slice_dims", true},
                                   {"operand_batching_dims", true}, {"start_indices_batching_dims", true},
                                   {"start_index_map", true},       {"index_vector_dim", false}};
constexpr Field kScatterFields[] = {
    {"update_window_dims", true},           {"inserted_window_dims", true},
    {"input_batching_dims", true},          {"scatter_indices_batching_dims", true},
    {"scatter_dims_to_operand_dims", true}, {"index_vector_dim", false}};

std::span<const Field> fields_of(Kind k) {
  if (k == Kind::gather_dimension_numbers) return kGatherFields;
  return kScatterFields;
}
const char* mlir_name(Kind k) { return k == Kind::gather_dimension_numbers ? "gather" : "scatter"; }
bool is_gather_scatter(Kind k) {
  return k == Kind::gather_dimension_numbers || k == Kind::scatter_dimension_numbers;
}

// Empty lists are left out, as MLIR prints them; index_vector_dim always appears.
std::string gather_scatter_text(Kind k, const detail::Attrs& attrs) {
  std::string body;
  for (const Field& f : fields_of(k)) {
    if (!attrs.has(f.name)) continue;
    std::string value;
    if (f.is_list) {
      const auto& v = attrs.get<Ints>(f.name);
      if (v.empty()) continue;
      value = fmt::format("[{}]", fmt::join(v, ", "));
    } else {
      value = std::to_string(attrs.get<std::int64_t>(f.name));
    }
    if (!body.empty()) body += ", ";
    body += fmt::format("{} = {}", f.name, value);
  }
  return fmt::format("#stablehlo.{}<{}>", mlir_name(k), body);
}

// Fields left out are empty lists, and index_vector_dim 0.
void decode_gather_scatter(const StableHloAttr& a, const AttrNode& n, detail::Attrs& out, Cursor& c) {
  if (n.kind != AttrNode::Kind::dialect || n.text != mlir_name(a.kind))
    c.fail_at(n.pos, fmt::format("'{}' must be #stablehlo.{}<...>", a.name, mlir_name(a.kind)));
  for (const Field& f : fields_of(a.kind)) {
    if (f.is_list)
      out.set(f.name, Ints{});
    else
      out.set(f.name, std::int64_t{0});
  }
  for (const auto& [key, value] : parse_fields(n, c)) {
    const Field* field = nullptr;
    for (const Field& f : fields_of(a.kind))
      if (key == f.name) field = &f;
    if (field == nullptr) c.fail_at(value.pos, fmt::format("#stablehlo.{} has no field '{}'", n.text, key));
    if (field->is_list) {
      if (value.kind != AttrNode::Kind::array) c.fail_at(value.pos, fmt::format("'{}' must be a list", key));
      Ints v;
      for (const AttrNode& item : value.items) {
        if (item.kind != AttrNode::Kind::integer) c.fail_at(item.pos, "expected an integer");
        v.push_back(int_value(item, c));
      }
      out.set(key, v);
    } else {
      if (value.kind != AttrNode::Kind::integer)
        c.fail_at(value.pos, fmt::format("'{}' must be an integer", key));
      out.set(key, int_value(value, c));
    }
  }
}

std::int64_t field_int(const AttrNode& n, Cursor& c) {
  if (n.kind != AttrNode::Kind::integer) c.fail_at(n.pos, "expected an integer");
  return int_value(n, c);
}

Ints field_ints(const AttrNode& n, Cursor& c) {
  if (n.kind != AttrNode::Kind::array) c.fail_at(n.pos, "expected a list of integers such as [0, 1]");
  Ints v;
  for (const AttrNode& item : n.items) v.push_back(field_int(item, c));
  return v;
}

// ---- #stablehlo.dot<...> ------------------------------------------------------------

constexpr const char* kDotFields[] = {"lhs_batching_dimensions", "rhs_batching_dimensions",
                                      "lhs_contracting_dimensions", "rhs_contracting_dimensions"};

bool dot_present(const detail::Attrs& attrs) {
  for (const char* f : kDotFields)
    if (!attrs.has(f)) return false;
  return true;
}

// Empty lists are left out, as MLIR prints them.
std::string dot_text(const detail::Attrs& attrs) {
  std::string body;
  for (const char* f : kDotFields) {
    const Ints& v = attrs.get<Ints>(f);
    if (v.empty()) continue;
    body += fmt::format("{}{} = [{}]", body.empty() ? "" : ", ", f, fmt::join(v, ", "));
  }
  return fmt::format("#stablehlo.dot<{}>", body);
}

void decode_dot(const AttrNode& n, detail::Attrs& out, Cursor& c) {
  if (n.kind != AttrNode::Kind::dialect || n.text != "dot")
    c.fail_at(n.pos, "dot_dimension_numbers must be #stablehlo.dot<...>");
  for (const char* f : kDotFields) out.set(f, Ints{});
  for (const auto& [key, value] : parse_fields(n, c)) {
    bool known = false;
    for (const char* f : kDotFields) known = known || key == f;
    if (!known) c.fail_at(value.pos, fmt::format("#stablehlo.dot has no field '{}'", key));
    out.set(key, field_ints(value, c));
  }
}

// ---- #stablehlo.dot_algorithm<...> ------------------------------------------------------

// Its fields in MLIR's order: three precision types (kept by name, as tf32 is no
// tensor type), three counts and a flag; every one is required.
constexpr const char* kAlgorithmTypes[] = {"lhs_precision_type", "rhs_precision_type", "accumulation_type"};
constexpr const char* kAlgorithmCounts[] = {"lhs_component_count", "rhs_component_count",
                                            "num_primitive_operations"};
constexpr const char* kAlgorithmFlag = "allow_imprecise_accumulation";

std::string algorithm_key(std::string_view field) { return fmt::format("algorithm.{}", field); }

std::string algorithm_text(const detail::Attrs& attrs) {
  std::string body;
  for (const char* f : kAlgorithmTypes)
    body += fmt::format("{}{} = {}", body.empty() ? "" : ", ", f, attrs.get<std::string>(algorithm_key(f)));
  for (const char* f : kAlgorithmCounts)
    body += fmt::format(", {} = {}", f, attrs.get<std::int64_t>(algorithm_key(f)));
  return fmt::format("#stablehlo.dot_algorithm<{}, {} = {}>", body, kAlgorithmFlag,
                     attrs.get<bool>(algorithm_key(kAlgorithmFlag)) ? "true" : "false");
}

void decode_algorithm(const AttrNode& n, detail::Attrs& out, Cursor& c) {
  if (n.kind != AttrNode::Kind::dialect || n.text != "dot_algorithm")
    c.fail_at(n.pos, "algorithm must be #stablehlo.dot_algorithm<...>");
  for (const auto& field : parse_fields(n, c)) {
    const std::string& key = field.first;
    const AttrNode& value = field.second;
    const auto is = [&](const auto& names) {
      return std::find(std::begin(names), std::end(names), key) != std::end(names);
    };
    if (is(kAlgorithmTypes) && value.kind == AttrNode::Kind::type && !value.text.empty())
      out.set(algorithm_key(key), value.text);
    else if (is(kAlgorithmCounts) && value.kind == AttrNode::Kind::integer)
      out.set(algorithm_key(key), field_int(value, c));
    else if (key == kAlgorithmFlag && value.kind == AttrNode::Kind::boolean)
      out.set(algorithm_key(key), value.text == "true");
    else
      c.fail_at(value.pos, fmt::format("#stablehlo.dot_algorithm has no field '{}' of this kind", key));
  }
  bool all = out.has(algorithm_key(kAlgorithmFlag));
  for (const auto& names :
       {std::span<const char* const>(kAlgorithmTypes), std::span<const char* const>(kAlgorithmCounts)})
    for (const char* f : names) all = all && out.has(algorithm_key(f));
  if (!all) c.fail_at(n.pos, "#stablehlo.dot_algorithm needs all seven of its fields");
}

// ---- #stablehlo.conv<...> -----------------------------------------------------------

constexpr const char* kConvInt[] = {"input_batch_dimension",          "input_feature_dimension",
                                    "kernel_input_feature_dimension", "kernel_output_feature_dimension",
                                    "output_batch_dimension",         "output_feature_dimension"};
constexpr const char* kConvList[] = {"input_spatial_dimensions", "kernel_spatial_dimensions",
                                     "output_spatial_dimensions"};

bool conv_present(const detail::Attrs& attrs) {
  for (const char* f : kConvInt)
    if (!attrs.has(f)) return false;
  for (const char* f : kConvList)
    if (!attrs.has(f)) return false;
  return true;
}

// One operand's layout, `[b, 0, 1, f]`: each dimension's role by position.
struct Layout {
  const char* first;   // the batch (or kernel input feature) dimension's letter and key
  const char* second;  // the feature (or kernel output feature) dimension's letter and key
  const char* spatial;
  std::string a, b;  // letters
};
constexpr std::size_t kSides = 3;
const Layout kLayouts[kSides] = {
    {"input_batch_dimension", "input_feature_dimension", "input_spatial_dimensions", "b", "f"},
    {"kernel_input_feature_dimension", "kernel_output_feature_dimension", "kernel_spatial_dimensions", "i",
     "o"},
    {"output_batch_dimension", "output_feature_dimension", "output_spatial_dimensions", "b", "f"}};

std::string layout_text(const Layout& l, const detail::Attrs& attrs) {
  const std::int64_t first = attrs.get<std::int64_t>(l.first), second = attrs.get<std::int64_t>(l.second);
  const Ints& sp = attrs.get<Ints>(l.spatial);
  std::vector<std::string> items(sp.size() + 2, "?");
  auto put = [&](std::int64_t d, std::string s) {
    if (d >= 0 && std::size_t(d) < items.size()) items[std::size_t(d)] = std::move(s);
  };
  put(first, l.a);
  put(second, l.b);
  for (std::size_t i = 0; i < sp.size(); ++i) put(sp[i], std::to_string(i));
  return fmt::format("[{}]", fmt::join(items, ", "));
}

std::string conv_raw_text(const detail::Attrs& attrs) {
  std::string body;
  for (std::size_t s = 0; s < kSides; ++s) {
    const Layout& l = kLayouts[s];
    body += fmt::format("{}{} = {}, {} = {}, {} = [{}]", s ? ", " : "", l.first,
                        attrs.get<std::int64_t>(l.first), l.second, attrs.get<std::int64_t>(l.second),
                        l.spatial, fmt::join(attrs.get<Ints>(l.spatial), ", "));
  }
  return "raw " + body;
}

// `[b, 0, 1, f]` at the cursor into one side's entries.
void parse_layout(const Layout& l, Cursor& c, detail::Attrs& out) {
  const std::size_t at = c.pos();
  c.expect("[");
  std::int64_t first = -1, second = -1;
  Ints spatial;
  std::vector<bool> seen;
  std::int64_t dim = 0;
  if (c.peek() != ']') {
    do {
      if (c.at_number()) {
        const std::int64_t k = c.integer();
        if (k < 0 || k > 64) c.fail_at(at, fmt::format("spatial dimension {} is out of range", k));
        if (spatial.size() <= std::size_t(k)) spatial.resize(std::size_t(k) + 1, -1);
        if (spatial[std::size_t(k)] != -1)
          c.fail_at(at, fmt::format("spatial dimension {} appears twice", k));
        spatial[std::size_t(k)] = dim;
      } else {
        const std::string w = c.identifier();
        std::int64_t& slot = w == l.a ? first : w == l.b ? second : dim;
        if (&slot == &dim) c.fail_at(at, fmt::format("expected {}, {} or a number, got '{}'", l.a, l.b, w));
        if (slot != -1) c.fail_at(at, fmt::format("'{}' appears twice", w));
        slot = dim;
      }
      ++dim;
    } while (c.eat(","));
  }
  c.expect("]");
  if (first < 0 || second < 0) c.fail_at(at, fmt::format("the layout needs both {} and {}", l.a, l.b));
  for (std::int64_t d : spatial)
    if (d < 0) c.fail_at(at, "the spatial dimensions must be numbered 0, 1, ... without gaps");
  out.set(l.first, first);
  out.set(l.second, second);
  out.set(l.spatial, spatial);
}

void decode_conv_raw(const AttrNode& n, std::string_view body, detail::Attrs& out, Cursor& c) {
  AttrNode fields_node = n;
  fields_node.word = std::string(body);
  fields_node.pos = n.pos + (n.word.size() - body.size());  // after `raw`
  for (const auto& [key, value] : parse_fields(fields_node, c)) {
    bool list = false, known = false;
    for (const char* f : kConvInt) known = known || key == f;
    for (const char* f : kConvList) list = list || key == f;
    if (!known && !list) c.fail_at(value.pos, fmt::format("#stablehlo.conv has no field '{}'", key));
    if (list)
      out.set(key, field_ints(value, c));
    else
      out.set(key, field_int(value, c));
  }
  if (!conv_present(out)) c.fail_at(n.pos, "#stablehlo.conv<raw ...> needs all nine fields");
}

void decode_conv(const AttrNode& n, detail::Attrs& out, Cursor& c) {
  if (n.kind != AttrNode::Kind::dialect || n.text != "conv")
    c.fail_at(n.pos, "dimension_numbers must be #stablehlo.conv<...>");
  std::string_view body = n.word;
  if (body.rfind("raw", 0) == 0) return decode_conv_raw(n, body.substr(3), out, c);
  Cursor sub(body, "", c.line_of(n.pos));
  try {
    parse_conv_layouts(sub, out);
    if (!sub.at_end()) sub.fail("expected the end of #stablehlo.conv<...>");
  } catch (const ParseError& e) {
    c.fail_at(n.pos, fmt::format("in #stablehlo.conv<...>: {}", e.what()));
  }
}

// The compact form, unless the numbers do not describe a layout (then `raw`).
std::string conv_text(const detail::Attrs& attrs) {
  const std::string compact = conv_layouts_text(attrs);
  return fmt::format("#stablehlo.conv<{}>",
                     compact.find('?') == std::string::npos ? compact : conv_raw_text(attrs));
}

}  // namespace

std::string conv_layouts_text(const detail::Attrs& attrs) {
  return fmt::format("{}x{}->{}", layout_text(kLayouts[0], attrs), layout_text(kLayouts[1], attrs),
                     layout_text(kLayouts[2], attrs));
}

void parse_conv_layouts(Cursor& c, detail::Attrs& out) {
  parse_layout(kLayouts[0], c, out);
  c.expect("x");
  parse_layout(kLayouts[1], c, out);
  c.expect("->");
  parse_layout(kLayouts[2], c, out);
}

// Each structured kind has its codec above; the dispatch is here.
bool struct_attr_present(const StableHloAttr& a, const detail::Attrs& attrs) {
  if (is_gather_scatter(a.kind)) return attrs.has("index_vector_dim");
  if (a.kind == Kind::dot_dimension_numbers) return dot_present(attrs);
  if (a.kind == Kind::dot_algorithm) return attrs.has(algorithm_key(kAlgorithmFlag));
  if (a.kind == Kind::conv_dimension_numbers) return conv_present(attrs);
  throw Error(fmt::format("StableHLO attribute '{}' has no codec yet", a.name));
}

std::string struct_attr_text(const StableHloAttr& a, const detail::Attrs& attrs) {
  if (is_gather_scatter(a.kind)) return gather_scatter_text(a.kind, attrs);
  if (a.kind == Kind::dot_dimension_numbers) return dot_text(attrs);
  if (a.kind == Kind::dot_algorithm) return algorithm_text(attrs);
  if (a.kind == Kind::conv_dimension_numbers) return conv_text(attrs);
  throw Error(fmt::format("StableHLO attribute '{}' has no codec yet", a.name));
}

void decode_struct_attr(const StableHloAttr& a, const AttrNode& n, detail::Attrs& out, Cursor& c) {
  if (is_gather_scatter(a.kind)) return decode_gather_scatter(a, n, out, c);
  if (a.kind == Kind::dot_dimension_numbers) return decode_dot(n, out, c);
  if (a.kind == Kind::dot_algorithm) return decode_algorithm(n, out, c);
  if (a.kind == Kind::conv_dimension_numbers) return decode_conv(n, out, c);
  c.fail_at(n.pos, fmt::format("StableHLO attribute '{}' is not supported yet", a.name));
}

}  // namespace tlaloc::stablehlo
