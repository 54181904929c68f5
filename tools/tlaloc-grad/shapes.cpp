#include "shapes.hpp"

#include <tlaloc/tlaloc.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <stdexcept>

#include "engine_rules.hpp"
#include "ir/op.hpp"
#include "rules.hpp"

namespace tlaloc_grad {
namespace {

namespace tl = tlaloc;

std::string trimmed(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// `tl::DType::f64` and the like.
std::optional<tl::DType> dtype_literal(const std::string& t) {
  const std::size_t at = t.rfind("DType::");
  if (at == std::string::npos) return std::nullopt;
  const std::string name = t.substr(at + 7);
  for (tl::DType d : tl::all_dtypes)
    if (name == tl::dtype_name(d) || (d == tl::DType::boolean && name == "boolean")) return d;
  return std::nullopt;
}

// An argument's text as the value it spells: a bool, an integer, a braced list of
// integers (a shape or axes), a dtype or a floating number; any other text is known
// at run time only, and stays as written. So does `{}`, which C++ reads as whatever
// the parameter's type makes of nothing: every axis for tl::Axes, but rank 0 for a
// shape.
tl::detail::AttrValue literal(const std::string& text) {
  const std::string t = trimmed(text);
  if (t == "true" || t == "false") return t == "true";
  if (const auto i = int_literal(t)) return *i;
  if (const auto list = int_list(t); list && !list->empty()) return *list;
  if (const auto d = dtype_literal(t)) return *d;
  char* end = nullptr;
  const double d = std::strtod(t.c_str(), &end);
  if (!t.empty() && *end == '\0') return d;
  return tl::detail::Written{t};
}

// The result's type by def's shape rule, from the operands' types (each known) and
// the attributes. An unknown dtype stands in as another operand's (shapes do not
// depend on it), and the result's dtype is then unknown too.
std::optional<Known> inferred(const tl::detail::OpDef& def, const std::vector<Known>& in,
                              const tl::detail::Attrs& attrs) {
  int stand_in = int(tl::DType::f32);
  bool all_dtypes = true;
  for (const Known& k : in) {
    if (k.dtype >= 0) stand_in = k.dtype;
    all_dtypes = all_dtypes && k.dtype >= 0;
  }
  std::vector<tl::detail::TensorType> types;
  for (const Known& k : in) types.push_back({tl::DType(k.dtype >= 0 ? k.dtype : stand_in), k.shape});
  for (const auto& [i, j] : def.public_call().converted) types.at(i).dtype = types.at(j).dtype;
  std::vector<tl::detail::TensorType> out;
  try {
    out = def.infer(types, attrs);
  } catch (const tl::ShapeError& e) {
    throw ShapeMismatch(e.what());
  } catch (const tl::Error&) {
    return std::nullopt;  // not a shape error (an attribute known at run time only): left to run time
  }
  if (out.size() != 1) return std::nullopt;
  return Known{out[0].shape, all_dtypes ? int(out[0].dtype) : -1};
}

// An elementwise op's operands: a scalar stands in as a rank-0 tensor, which fixes the
// shape; the dtype is then left unknown (the library types scalars weakly).
std::optional<Known> elementwise(const tl::detail::OpDef& def, const std::vector<Operand>& ops) {
  std::vector<Known> in;
  for (const Operand& o : ops) {
    if (o.tensor && !o.known) return std::nullopt;
    in.push_back(o.tensor ? *o.known : Known{{}, -1});
  }
  return inferred(def, in, {});
}

// A public function's result: its op's shape rule on the operands' types and the
// arguments after them as its attributes. Where an operand's type is unknown, a
// literal `shape` argument still gives the result's shape (tl::reshape(x, {2, 3}),
// tl::broadcast_to): an op's `shape` attribute is its result's shape, as in the
// StableHLO spec.
std::optional<Known> called(const tl::detail::OpDef& def, const std::vector<Operand>& ops) {
  std::vector<Known> in;
  std::vector<tl::detail::AttrValue> arguments;
  bool all_known = true;
  for (const Operand& o : ops) {
    if (!o.tensor)
      arguments.push_back(literal(o.text));
    else if (o.known)
      in.push_back(*o.known);
    else
      all_known = false;
  }
  tl::detail::Attrs attrs;
  try {
    attrs = called_attributes(def, arguments);
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
  if (all_known) return inferred(def, in, attrs);
  std::vector<std::int64_t> shape;
  try {
    shape = attrs.get<std::vector<std::int64_t>>("shape");
  } catch (const tl::Error&) {
    return std::nullopt;  // no shape argument, or one known at run time only
  }
  if (std::any_of(shape.begin(), shape.end(), [](std::int64_t d) { return d < 0; })) return std::nullopt;
  return Known{shape, -1};
}

}  // namespace

std::optional<std::int64_t> int_literal(const std::string& text) {
  const std::string t = trimmed(text);
  if (t.empty()) return std::nullopt;
  char* end = nullptr;
  const long long v = std::strtoll(t.c_str(), &end, 10);
  if (*end != '\0') return std::nullopt;
  return std::int64_t(v);
}

std::optional<std::vector<std::int64_t>> int_list(const std::string& text) {
  const std::string t = trimmed(text);
  if (t.size() < 2 || t.front() != '{' || t.back() != '}') return std::nullopt;
  const std::string inner = trimmed(t.substr(1, t.size() - 2));
  std::vector<std::int64_t> out;
  if (inner.empty()) return out;
  std::size_t from = 0;
  for (;;) {
    const std::size_t comma = inner.find(',', from);
    const auto v =
        int_literal(inner.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
    if (!v) return std::nullopt;
    out.push_back(*v);
    if (comma == std::string::npos) return out;
    from = comma + 1;
  }
}

std::optional<Known> result_of(const std::string& fn, const std::vector<Operand>& operands) {
  const Rule* rule = find_rule(fn);
  const tl::detail::OpDef* def =
      rule != nullptr && rule->op != nullptr ? rule->op : tl::detail::find_called_as(fn);
  if (def == nullptr) return std::nullopt;
  return def->is_elementwise() ? elementwise(*def, operands) : called(*def, operands);
}

std::string type_text(const Known& k) {
  std::string s = k.dtype >= 0 ? std::string(tl::dtype_name(tl::DType(k.dtype))) : "?";
  s += "[";
  for (std::size_t i = 0; i < k.shape.size(); ++i) s += (i ? "," : "") + std::to_string(k.shape[i]);
  return s + "]";
}

}  // namespace tlaloc_grad
