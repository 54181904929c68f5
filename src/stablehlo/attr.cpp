#include "stablehlo/attr.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>

#include "core/narrow.hpp"
#include "core/tensor_impl.hpp"

namespace tlaloc::stablehlo {
namespace {

// ---- element literals --------------------------------------------------------

struct Literal {
  std::string text;
  std::size_t pos;
  std::string imag;  // a complex literal `(re, im)`; text holds re
};

// Nested lists as written; `shape` is filled from the nesting.
void parse_list(Cursor& c, std::vector<Literal>& out, Shape& shape, std::size_t depth) {
  Cursor::Depth guard(c);
  if (c.eat("[")) {
    std::int64_t n = 0;
    if (!c.eat("]")) {
      do {
        parse_list(c, out, shape, depth + 1);
        ++n;
      } while (c.eat(","));
      c.expect("]");
    }
    if (shape.size() <= depth) shape.resize(depth + 1, -1);
    if (shape[depth] != -1 && shape[depth] != n) c.fail("dense literal has rows of different lengths");
    shape[depth] = n;
    return;
  }
  c.skip_space();
  const std::size_t at = c.pos();
  if (c.eat_word("true"))
    out.push_back({"true", at, ""});
  else if (c.eat_word("false"))
    out.push_back({"false", at, ""});
  else if (c.at_number())
    out.push_back({c.number_text(), at, ""});
  else if (c.eat("(")) {
    Literal lit{c.number_text(), at, ""};
    c.expect(",");
    lit.imag = c.number_text();
    c.expect(")");
    out.push_back(std::move(lit));
  } else
    c.fail("expected a number, true, false or '[' in a dense literal");
}

// Element i's bits; a complex element is two parts, real first.
void store_bits(Tensor& t, std::int64_t i, std::uint64_t bits, std::size_t part = 0) {
  const std::size_t n = itemsize(real_dtype(t.dtype()));
  const std::size_t at = std::size_t(i) * itemsize(t.dtype()) + part * n;
  std::memcpy(static_cast<char*>(t.impl().data()) + at, &bits, n);  // little endian
}

std::uint64_t literal_bits(Cursor& c, const Literal& lit, DType t) {
  const std::string& s = lit.text;
  const bool hex = s.rfind("0x", 0) == 0 || s.rfind("0X", 0) == 0;
  if (t == DType::boolean) {
    if (s == "true" || s == "1") return 1;
    if (s == "false" || s == "0") return 0;
    c.fail_at(lit.pos, fmt::format("'{}' is not an i1 value", s));
  }
  if (s == "true" || s == "false")
    c.fail_at(lit.pos, fmt::format("'{}' is not a {} value", s, element_type_name(t)));
  if (is_floating(t)) {
    if (hex) {
      const std::string digits = s.substr(2);
      // Leading zeros aside, at most 16 hex digits fit in the 64 bits stoull reads.
      if (digits.empty() || digits.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos ||
          digits.size() - std::min(digits.find_first_not_of('0'), digits.size()) > 16)
        c.fail_at(lit.pos,
                  fmt::format("hex value {} is malformed or too wide for {}", s, element_type_name(t)));
      const std::uint64_t bits = std::stoull(digits, nullptr, 16);
      if (bit_width(t) < 64 && bits >> bit_width(t) != 0)
        c.fail_at(lit.pos, fmt::format("hex value {} is too wide for {}", s, element_type_name(t)));
      return bits;
    }
    if (t == DType::f64) return std::bit_cast<std::uint64_t>(std::strtod(s.c_str(), nullptr));
    if (is_narrow(t)) return detail::narrow_float_bits(t, std::strtod(s.c_str(), nullptr));
    const float f = std::strtof(s.c_str(), nullptr);
    if (t == DType::f32) return std::bit_cast<std::uint32_t>(f);
    if (t == DType::bf16) return bf16(f).bits;
    return f16(f).bits;
  }
  if (s.find_first_of(".eE") != std::string::npos && !hex)
    c.fail_at(lit.pos, fmt::format("'{}' is not an integer", s));
  const bool neg = s[0] == '-';
  unsigned long long mag = 0;
  try {
    mag = std::stoull(neg || s[0] == '+' ? s.substr(1) : s, nullptr, 0);
  } catch (const std::exception&) {
    c.fail_at(lit.pos, fmt::format("integer {} is out of range", s));
  }
  const int bits = bit_width(t);
  const bool ok = is_unsigned(t) ? !neg && (bits == 64 || mag < (1ull << bits))
                                 : (neg ? mag <= (1ull << (bits - 1)) : mag < (1ull << (bits - 1)));
  if (!ok) c.fail_at(lit.pos, fmt::format("{} does not fit in {}", s, element_type_name(t)));
  return neg ? 0ull - mag : mag;
}

void store_literal(Cursor& c, Tensor& t, std::int64_t i, const Literal& lit) {
  const DType d = t.dtype();
  if (is_complex(d) != !lit.imag.empty())
    c.fail_at(lit.pos, is_complex(d)
                           ? fmt::format("a {} element is written (real, imaginary)", element_type_name(d))
                           : fmt::format("a complex value is not a {} value", element_type_name(d)));
  store_bits(t, i, literal_bits(c, lit, real_dtype(d)));
  if (is_complex(d)) store_bits(t, i, literal_bits(c, {lit.imag, lit.pos, ""}, real_dtype(d)), 1);
}

Tensor from_hex(Cursor& c, const std::string& hex, const ir::TensorType& type, std::size_t at) {
  if (hex.rfind("0x", 0) != 0 || hex.size() % 2 != 0)
    c.fail_at(at, "hex dense literal must be \"0x\" and byte pairs");
  std::vector<unsigned char> bytes;
  for (std::size_t i = 2; i < hex.size(); i += 2) {
    const std::string pair = hex.substr(i, 2);
    if (pair.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
      c.fail_at(at, "hex dense literal has a character that is not a hex digit");
    bytes.push_back(static_cast<unsigned char>(std::stoi(pair, nullptr, 16)));
  }
  const std::size_t total = std::size_t(detail::numel_of(type.shape)) * itemsize(type.dtype);
  if (bytes.size() != total && bytes.size() != itemsize(type.dtype))  // checked before allocating
    c.fail_at(
        at, fmt::format("hex dense literal has {} bytes; {} needs {}", bytes.size(), type_text(type), total));
  Tensor t = detail::empty(type.shape, type.dtype);
  if (bytes.size() == total) {
    if (total) std::memcpy(t.impl().data(), bytes.data(), total);
  } else {  // a splat
    for (std::int64_t i = 0; i < t.numel(); ++i)
      std::memcpy(static_cast<char*>(t.impl().data()) + std::size_t(i) * bytes.size(), bytes.data(),
                  bytes.size());
  }
  return t;
}

std::string scalar_text(const char* at, DType d) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, at, itemsize(d));
  switch (d) {
    case DType::boolean:
      return bits ? "true" : "false";
    case DType::f32:
      return float_text(std::bit_cast<float>(std::uint32_t(bits)), d);
    case DType::f64:
      return float_text(std::bit_cast<double>(bits), d);
    case DType::bf16: {
      bf16 h;
      h.bits = std::uint16_t(bits);
      return std::isfinite(float(h)) ? float_text(float(h), d) : fmt::format("0x{:04X}", bits);
    }
    case DType::f16: {
      f16 h;
      h.bits = std::uint16_t(bits);
      return std::isfinite(float(h)) ? float_text(float(h), d) : fmt::format("0x{:04X}", bits);
    }
    default:
      break;
  }
  if (is_narrow_float(d)) {
    const double v = detail::narrow_float_value(d, std::uint8_t(bits));
    return std::isfinite(v) ? float_text(v, d) : fmt::format("0x{:02X}", bits);
  }
  if (is_unsigned(d)) return std::to_string(bits);
  const int shift = int(64 - 8 * itemsize(d));
  return std::to_string(std::int64_t(bits << shift) >> shift);  // sign-extend
}

std::string element_text(const Tensor& t, std::int64_t i) {
  const DType d = t.dtype();
  const char* at = static_cast<const char*>(t.raw_data()) + std::size_t(i) * itemsize(d);
  if (!is_complex(d)) return scalar_text(at, d);
  const DType part = real_dtype(d);
  std::string s = "(";
  s += scalar_text(at, part);
  s += ", ";
  s += scalar_text(at + itemsize(part), part);
  return s + ")";
}

void list_text(const Tensor& t, std::size_t axis, std::int64_t& next, std::string& out) {
  if (axis == t.shape().size()) {
    out += element_text(t, next++);
    return;
  }
  out += '[';
  for (std::int64_t i = 0; i < t.shape()[axis]; ++i) {
    if (i) out += ", ";
    list_text(t, axis + 1, next, out);
  }
  out += ']';
}

// ---- attribute values ----------------------------------------------------------

std::string balanced_body(Cursor& c) {  // after '<', up to the matching '>'
  const std::size_t start = c.pos();
  int depth = 1;
  std::size_t p = start;
  const std::string_view text = c.text();
  while (p < text.size() && depth > 0) {
    const char ch = text[p];
    if (ch == '<' || ch == '[' || ch == '(' || ch == '{')
      ++depth;
    else if (ch == '>' && p > 0 && text[p - 1] == '-') {
    }  // "->" inside a body
    else if (ch == '>' || ch == ']' || ch == ')' || ch == '}')
      --depth;
    ++p;
  }
  if (depth != 0) c.fail_at(start, "unterminated '<' in an attribute");
  c.seek(p);
  return std::string(text.substr(start, p - 1 - start));
}

void optional_scalar_type(Cursor& c, AttrNode& n) {
  const std::size_t save = c.pos();
  if (c.eat(":") && !c.eat(":")) {
    c.skip_space();
    if (at_type(c)) {
      c.seek(save);  // `dense<..> : tensor<..>` is handled by the caller
      return;
    }
    n.scalar_type = parse_element_type(c);
    return;
  }
  c.seek(save);
}

thread_local std::size_t constant_budget = std::numeric_limits<std::size_t>::max();

// Takes a constant's bytes from the budget, or refuses it.
void spend_constant_bytes(Cursor& c, const ir::TensorType& type, std::size_t at) {
  std::int64_t n = 0;
  try {
    n = detail::numel_of(type.shape);
  } catch (const Error& e) {
    c.fail_at(at, e.what());
  }
  const std::size_t item = itemsize(type.dtype);
  if (std::uint64_t(n) > constant_budget / item)
    c.fail_at(at, fmt::format("the constant {} is larger than the {} bytes a module's constants may hold "
                              "(ParseOptions::max_constant_bytes)",
                              type_text(type), constant_budget));
  constant_budget -= std::size_t(n) * item;
}

}  // namespace

ConstantBudget::ConstantBudget(std::size_t bytes) : saved_(constant_budget) { constant_budget = bytes; }
ConstantBudget::~ConstantBudget() { constant_budget = saved_; }

const AttrNode* AttrNode::field(std::string_view name) const {
  for (std::size_t i = 0; i < field_names.size(); ++i)
    if (field_names[i] == name) return &field_values[i];
  return nullptr;
}

std::int64_t int_value(const AttrNode& n, Cursor& c) {
  try {
    Cursor sub(n.text, "");
    const std::int64_t v = sub.integer();
    if (sub.at_end()) return v;
  } catch (const ParseError&) {
    // Reported below at the literal's place in the whole text.
  }
  c.fail_at(n.pos, fmt::format("integer {} is out of range or malformed", n.text));
}

std::string float_text(double v, DType t) {
  if (!std::isfinite(v)) {
    if (t == DType::f64) return fmt::format("0x{:016X}", std::bit_cast<std::uint64_t>(v));
    if (t == DType::f32) return fmt::format("0x{:08X}", std::bit_cast<std::uint32_t>(float(v)));
    if (is_narrow_float(t)) return fmt::format("0x{:02X}", detail::narrow_float_bits(t, v));
    const std::uint16_t bits = t == DType::bf16 ? bf16(float(v)).bits : f16(float(v)).bits;
    return fmt::format("0x{:04X}", bits);
  }
  // The shortest text that reads back to the same value, with the '.' MLIR needs.
  std::string s = t == DType::f64 ? fmt::format("{}", v) : fmt::format("{}", float(v));
  const std::size_t e = s.find_first_of("eE");
  if (s.find('.') == std::string::npos) s.insert(e == std::string::npos ? s.size() : e, ".0");
  return s;
}

Tensor parse_dense(Cursor& c, const ir::TensorType& type, std::size_t at) {
  if (!ir::is_static(type)) c.fail_at(at, "a dense literal needs a static shape");
  spend_constant_bytes(c, type, at);
  c.expect("<");
  if (c.eat(">")) {
    if (detail::numel_of(type.shape) != 0) c.fail_at(at, "empty dense literal for a non-empty tensor");
    return detail::empty(type.shape, type.dtype);
  }
  if (c.peek() == '"') {
    const std::string hex = c.string_literal();
    c.expect(">");
    return from_hex(c, hex, type, at);
  }
  std::vector<Literal> lits;
  Shape shape;
  parse_list(c, lits, shape, 0);
  c.expect(">");
  const bool splat = lits.size() == 1 && shape.empty();
  if (!splat && shape != type.shape)  // checked before allocating: the type may be huge
    c.fail_at(at, fmt::format("dense literal of shape {} for {}", shape_string(shape), type_text(type)));
  Tensor t = detail::empty(type.shape, type.dtype);
  if (splat) {
    if (t.numel() == 0) return t;
    store_literal(c, t, 0, lits[0]);
    const std::size_t n = itemsize(type.dtype);
    for (std::int64_t i = 1; i < t.numel(); ++i)
      std::memcpy(static_cast<char*>(t.impl().data()) + std::size_t(i) * n, t.impl().data(), n);
    return t;
  }
  for (std::size_t i = 0; i < lits.size(); ++i) store_literal(c, t, std::int64_t(i), lits[i]);
  return t;
}

Tensor parse_dense_with_type(Cursor& c) {
  c.skip_space();
  const std::size_t at = c.pos();
  c.expect_word("dense");
  // The type follows the literal: read ahead for it, then come back.
  const std::size_t body = c.pos();
  c.expect("<");
  balanced_body(c);
  c.expect(":");
  const ir::TensorType type = parse_type(c);
  const std::size_t end = c.pos();
  c.seek(body);
  Tensor t = parse_dense(c, type, at);
  c.seek(end);
  return t;
}

std::string dense_text(const Tensor& t) {
  const std::int64_t n = t.numel();
  bool splat = n > 1;
  for (std::int64_t i = 1; splat && i < n; ++i)
    splat = std::memcmp(static_cast<const char*>(t.raw_data()),
                        static_cast<const char*>(t.raw_data()) + std::size_t(i) * itemsize(t.dtype()),
                        itemsize(t.dtype())) == 0;
  if (n == 0) return "dense<>";
  if (splat || t.shape().empty()) return "dense<" + element_text(t, 0) + ">";
  if (n > 64 && t.dtype() != DType::boolean) {  // large: the bytes, as MLIR prints them
    std::string s = "dense<\"0x";
    const auto* p = static_cast<const unsigned char*>(t.raw_data());
    for (std::size_t i = 0; i < std::size_t(n) * itemsize(t.dtype()); ++i) s += fmt::format("{:02X}", p[i]);
    return s + "\">";
  }
  std::string s = "dense<";
  std::int64_t next = 0;
  list_text(t, 0, next, s);
  return s + ">";
}

AttrNode parse_attr(Cursor& c) {
  Cursor::Depth guard(c);
  c.skip_space();
  AttrNode n;
  n.pos = c.pos();
  const char ch = c.peek_raw();
  if (ch == '[') {
    n.kind = AttrNode::Kind::array;
    c.expect("[");
    if (!c.eat("]")) {
      do n.items.push_back(parse_attr(c));
      while (c.eat(","));
      c.expect("]");
    }
  } else if (ch == '(') {
    n.kind = AttrNode::Kind::function;
    std::tie(n.fn_inputs, n.fn_results) = parse_function_type(c);
  } else if (ch == '{') {
    n.kind = AttrNode::Kind::dict;
    for (auto& [k, v] : parse_attr_dict(c)) {
      n.field_names.push_back(k);
      n.field_values.push_back(std::move(v));
    }
  } else if (ch == '"') {
    n.kind = AttrNode::Kind::string;
    n.text = c.string_literal();
  } else if (ch == '@') {
    n.kind = AttrNode::Kind::symbol;
    n.text = c.symbol_name();
  } else if (ch == '#') {
    c.seek(c.pos() + 1);
    n.kind = AttrNode::Kind::dialect;
    const std::string name = c.identifier();  // "stablehlo" or "stablehlo.gather"
    c.expect("<");
    if (name.find('.') == std::string::npos) {  // #stablehlo<comparison_direction GT>
      n.text = c.identifier();
      n.word = c.identifier();
      c.expect(">");
    } else {
      n.text = name.substr(name.find('.') + 1);
      n.word = balanced_body(c);
      n.pos = c.pos() - n.word.size() - 1;  // the body's start: parse_fields reports from there
    }
  } else if (c.rest().rfind("dense<", 0) == 0) {
    n.kind = AttrNode::Kind::dense;
    n.value = parse_dense_with_type(c);
  } else if (c.rest().rfind("array<", 0) == 0) {
    n.kind = AttrNode::Kind::dense_array;
    c.expect_word("array");
    c.expect("<");
    n.scalar_type = parse_element_type(c);
    if (c.eat(":")) {
      do {
        AttrNode item;
        item.pos = c.pos();
        if (c.eat_word("true") || c.eat_word("false")) {
          item.kind = AttrNode::Kind::boolean;
          item.text = std::string(c.text().substr(item.pos, c.pos() - item.pos));
          item.text.erase(0, item.text.find_first_not_of(" \t\n"));
        } else {
          item.kind = AttrNode::Kind::integer;
          item.text = std::to_string(c.integer());
        }
        n.items.push_back(std::move(item));
      } while (c.eat(","));
    }
    c.expect(">");
  } else if (c.eat_word("true") || c.eat_word("false")) {
    n.kind = AttrNode::Kind::boolean;
    n.text = c.text().substr(n.pos, 4) == "true" ? "true" : "false";
  } else if (c.eat_word("unit")) {
    n.kind = AttrNode::Kind::unit;
  } else if (c.at_number()) {
    n.text = c.number_text();
    n.kind = n.text.find_first_of(".eE") != std::string::npos && n.text.rfind("0x", 0) != 0
                 ? AttrNode::Kind::floating
                 : AttrNode::Kind::integer;
    optional_scalar_type(c, n);
  } else if (at_type(c)) {
    n.kind = AttrNode::Kind::type;
    n.type = parse_type(c);
  } else {
    // An element type used as a value, e.g. `f32`; tf32 only names a precision
    // (dot_general's algorithm) and holds no tensor.
    const std::string word = c.identifier();
    if (!element_type_of(word) && word != "tf32")
      c.fail_at(n.pos, fmt::format("unexpected '{}' where an attribute value belongs", word));
    n.kind = AttrNode::Kind::type;
    n.text = word;
    if (auto t = element_type_of(word)) n.type.dtype = *t;
  }
  n.end = c.pos();
  return n;
}

std::vector<ir::TensorType> parse_type_list(Cursor& c) {
  std::vector<ir::TensorType> out;
  if (!c.eat("(")) {
    out.push_back(parse_type(c));
    return out;
  }
  if (c.eat(")")) return out;
  do out.push_back(parse_type(c));
  while (c.eat(","));
  c.expect(")");
  return out;
}

std::pair<std::vector<ir::TensorType>, std::vector<ir::TensorType>> parse_function_type(Cursor& c) {
  Cursor::Depth guard(c);
  if (c.peek() != '(') c.fail("expected a function type such as (tensor<f32>) -> tensor<f32>");
  std::vector<ir::TensorType> in = parse_type_list(c);
  c.expect("->");
  return {std::move(in), parse_type_list(c)};
}

std::vector<std::pair<std::string, AttrNode>> parse_attr_dict(Cursor& c) {
  Cursor::Depth guard(c);
  std::vector<std::pair<std::string, AttrNode>> out;
  c.expect("{");
  if (c.eat("}")) return out;
  do {
    c.skip_space();
    const std::string key = c.peek_raw() == '"' ? c.string_literal() : c.identifier();
    AttrNode v;
    if (c.eat("=")) v = parse_attr(c);
    for (const auto& [k, old] : out)
      if (k == key) c.fail(fmt::format("attribute '{}' is given twice", key));
    out.emplace_back(key, std::move(v));
  } while (c.eat(","));
  c.expect("}");
  return out;
}

std::vector<std::pair<std::string, AttrNode>> parse_fields(const AttrNode& dialect_attr, Cursor& outer) {
  // Read the body in place (a prefix of the outer text ending with the body), so the
  // fields' positions are positions in the outer text and errors about them point right.
  const std::size_t at = dialect_attr.pos, end = at + dialect_attr.word.size();
  const bool in_place = end <= outer.text().size() && outer.text().substr(at, end - at) == dialect_attr.word;
  Cursor c(in_place ? outer.text().substr(0, end) : std::string_view(dialect_attr.word), "",
           in_place ? outer.line_of(0) : outer.line_of(at));
  if (in_place) c.seek(at);
  std::vector<std::pair<std::string, AttrNode>> out;
  try {
    if (c.at_end()) return out;
    do {
      const std::string key = c.identifier();
      c.expect("=");
      out.emplace_back(key, parse_attr(c));
    } while (c.eat(","));
    if (!c.at_end()) c.fail("expected ',' or the end of the attribute");
  } catch (const ParseError& e) {
    outer.fail_at(dialect_attr.pos, fmt::format("in #stablehlo.{}<...>: {}", dialect_attr.text, e.what()));
  }
  return out;
}

}  // namespace tlaloc::stablehlo
