#include "stablehlo/struct_attrs.hpp"

#include <fmt/format.h>

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
        v.push_back(std::stoll(item.text));
      }
      out.set(key, v);
    } else {
      if (value.kind != AttrNode::Kind::integer)
        c.fail_at(value.pos, fmt::format("'{}' must be an integer", key));
      out.set(key, std::int64_t(std::stoll(value.text)));
    }
  }
}

}  // namespace

// The dot and conv kinds are filled in with the ops that use them.
bool struct_attr_present(const StableHloAttr& a, const detail::Attrs& attrs) {
  if (is_gather_scatter(a.kind)) return attrs.has("index_vector_dim");
  throw Error(fmt::format("StableHLO attribute '{}' has no codec yet", a.name));
}

std::string struct_attr_text(const StableHloAttr& a, const detail::Attrs& attrs) {
  if (is_gather_scatter(a.kind)) return gather_scatter_text(a.kind, attrs);
  throw Error(fmt::format("StableHLO attribute '{}' has no codec yet", a.name));
}

void decode_struct_attr(const StableHloAttr& a, const AttrNode& n, detail::Attrs& out, Cursor& c) {
  if (is_gather_scatter(a.kind)) return decode_gather_scatter(a, n, out, c);
  c.fail_at(n.pos, fmt::format("StableHLO attribute '{}' is not supported yet", a.name));
}

}  // namespace tlaloc::stablehlo
