#include "stablehlo/types.hpp"

#include <fmt/format.h>

#include <cctype>

namespace tlaloc::stablehlo {
namespace {

struct ElementName {
  std::string_view name;
  DType dtype;
};
// The first name of a dtype is the one printed.
constexpr ElementName kElementNames[] = {
    {"f32", DType::f32},
    {"f64", DType::f64},
    {"bf16", DType::bf16},
    {"f16", DType::f16},
    {"i1", DType::boolean},
    {"i8", DType::i8},
    {"i32", DType::i32},
    {"i64", DType::i64},
    {"i16", DType::i16},
    {"ui8", DType::u8},
    {"ui16", DType::u16},
    {"ui32", DType::u32},
    {"ui64", DType::u64},
    {"si8", DType::i8},
    {"si16", DType::i16},
    {"si32", DType::i32},
    {"si64", DType::i64},
    {"complex<f32>", DType::c64},
    {"complex<f64>", DType::c128},
    {"i2", DType::i2},
    {"i4", DType::i4},
    {"ui2", DType::u2},
    {"ui4", DType::u4},
    {"si2", DType::i2},
    {"si4", DType::i4},
    {"f8E3M4", DType::f8e3m4},
    {"f8E4M3", DType::f8e4m3},
    {"f8E4M3FN", DType::f8e4m3fn},
    {"f8E4M3FNUZ", DType::f8e4m3fnuz},
    {"f8E4M3B11FNUZ", DType::f8e4m3b11fnuz},
    {"f8E5M2", DType::f8e5m2},
    {"f8E5M2FNUZ", DType::f8e5m2fnuz},
    {"f8E8M0FNU", DType::f8e8m0fnu},
    {"f4E2M1FN", DType::f4e2m1fn},
    {"f6E2M3FN", DType::f6e2m3fn},
    {"f6E3M2FN", DType::f6e3m2fn},
};

[[noreturn]] void unsupported_element(Cursor& c, std::size_t at, const std::string& name) {
  if (name.rfind("!quant", 0) == 0 || name == "tf32")
    c.fail_at(at,
              fmt::format("element type {} is not supported (docs/CAPABILITIES.md lists the supported ones)",
                          name));
  c.fail_at(at, fmt::format("unknown element type '{}'", name));
}

}  // namespace

std::string element_type_name(DType t) {
  for (const ElementName& e : kElementNames)
    if (e.dtype == t) return std::string(e.name);
  return std::string(dtype_name(t));
}

std::optional<DType> element_type_of(std::string_view name) {
  for (const ElementName& e : kElementNames)
    if (e.name == name) return e.dtype;
  return std::nullopt;
}

std::string type_text(const ir::TensorType& t) {
  if (t.token) return "!stablehlo.token";
  std::string s = "tensor<";
  for (std::int64_t d : t.shape) s += (d == ir::kDynamic ? std::string("?") : std::to_string(d)) + "x";
  return s + element_type_name(t.dtype) + ">";
}

DType parse_element_type(Cursor& c) {
  c.skip_space();
  const std::size_t at = c.pos();
  std::string name;
  if (c.peek_raw() == '!') {
    c.seek(c.pos() + 1);
    name = "!";
    name += c.identifier();
  } else {
    name = c.identifier();
  }
  if (name == "complex") {  // complex<f32> or complex<f64>
    c.expect("<");
    name += '<';
    name += c.identifier();
    name += '>';
    c.expect(">");
  }
  if (auto t = element_type_of(name)) return *t;
  unsupported_element(c, at, name);
}

bool at_type(Cursor& c) {
  c.skip_space();
  const std::string_view r = c.rest();
  return r.rfind("tensor<", 0) == 0 || r.rfind("tuple<", 0) == 0 || r.rfind("!stablehlo", 0) == 0;
}

ir::TensorType parse_type(Cursor& c) {
  c.skip_space();
  const std::size_t at = c.pos();
  if (c.rest().rfind("tuple<", 0) == 0) c.fail("tuple types are not supported (docs/CAPABILITIES.md)");
  if (c.eat_word("!stablehlo.token")) return ir::token_type();
  if (!c.eat_word("tensor")) c.fail("expected a tensor type such as tensor<2x3xf32>");
  c.expect("<");
  ir::TensorType t;
  if (c.peek() == '*') c.fail("unranked tensors are not supported");
  // Dimensions: `N x` or `? x`, until the element type.
  for (;;) {
    c.skip_space();
    const char ch = c.peek_raw();
    if (ch == '?') {
      c.seek(c.pos() + 1);
      t.shape.push_back(ir::kDynamic);
    } else if (std::isdigit(static_cast<unsigned char>(ch))) {
      const std::size_t dim_at = c.pos();
      std::size_t p = c.pos();
      while (p < c.text().size() && std::isdigit(static_cast<unsigned char>(c.text()[p]))) ++p;
      const std::string digits(c.text().substr(c.pos(), p - c.pos()));
      c.seek(p);
      if (digits.size() > 15 || std::stoll(digits) > kMaxDim)
        c.fail_at(dim_at, fmt::format("dimension {} is too large", digits));
      t.shape.push_back(std::stoll(digits));
    } else if (ch == '-') {
      c.fail("a dimension cannot be negative");
    } else {
      break;
    }
    if (c.peek_raw() != 'x') c.fail("expected 'x' after a dimension");
    c.seek(c.pos() + 1);
  }
  t.dtype = parse_element_type(c);
  if (c.eat(",")) c.fail_at(at, "tensor encodings (sparsity, bounds) are not supported");
  c.expect(">");
  return t;
}

}  // namespace tlaloc::stablehlo
