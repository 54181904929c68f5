// Pieces of printed C++ shared by the ops' spellings (src/ops/cpp_spelling.hpp).
#include "ops/cpp_spelling.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <limits>

namespace tlaloc::detail {
namespace {

// The shortest text that reads back as v: fmt prints the shortest round trip.
template <class F>
std::string float_literal(F v) {
  constexpr bool is_f32 = std::is_same_v<F, float>;
  const char* type = is_f32 ? "float" : "double";
  if (std::isnan(v)) {
    // Keep sign and payload: a NaN's bits are part of the result.
    using U = std::conditional_t<is_f32, std::uint32_t, std::uint64_t>;
    return fmt::format("std::bit_cast<{}>({}{{0x{:x}}})", type, is_f32 ? "std::uint32_t" : "std::uint64_t",
                       std::bit_cast<U>(v));
  }
  if (std::isinf(v)) return fmt::format("{}std::numeric_limits<{}>::infinity()", v < 0 ? "-" : "", type);
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return is_f32 ? s + "f" : s;
}

std::string int_literal(std::int64_t v) {
  if (v == std::numeric_limits<std::int64_t>::min()) return "std::numeric_limits<std::int64_t>::min()";
  return fmt::format("{}", v);
}

// The elements of t as literals of the C++ type tl::tensor takes for its dtype.
std::vector<std::string> literals(const Tensor& t) {
  std::vector<std::string> out;
  if (t.dtype() == DType::f64) {
    for (double v : t.to_vector<double>()) out.push_back(float_literal(v));
  } else if (is_floating(t.dtype())) {
    for (float v : t.to_vector<float>()) out.push_back(float_literal(v));
  } else if (t.dtype() == DType::boolean) {
    for (bool v : t.to_vector<bool>()) out.push_back(cpp_bool(v));
  } else if (t.dtype() == DType::u64) {
    for (std::uint64_t v : t.to_vector<std::uint64_t>()) out.push_back(fmt::format("{}u", v));
  } else {
    for (std::int64_t v : t.to_vector<std::int64_t>()) out.push_back(int_literal(v));
  }
  return out;
}

// The element type whose std::vector tl::tensor takes for dtype t (16-bit and
// narrow floats go through float, narrow integers through int64_t, and convert, exactly).
std::string vector_type(DType t) {
  if (is_narrow_float(t)) return "float";
  switch (t) {
    case DType::f64:
      return "double";
    case DType::f32:
    case DType::bf16:
    case DType::f16:
      return "float";
    case DType::boolean:
      return "bool";
    default:
      return fmt::format("std::{}_t", t == DType::u8    ? "uint8"
                                      : t == DType::u16 ? "uint16"
                                      : t == DType::u32 ? "uint32"
                                      : t == DType::u64 ? "uint64"
                                      : t == DType::i8  ? "int8"
                                      : t == DType::i16 ? "int16"
                                      : t == DType::i32 ? "int32"
                                                        : "int64");
  }
}

}  // namespace

std::string cpp_list(const std::vector<std::string>& items) { return fmt::format("{}", fmt::join(items, ", ")); }
std::string cpp_ints(const std::vector<std::int64_t>& v) { return fmt::format("{{{}}}", fmt::join(v, ", ")); }
std::string cpp_shape(const Shape& s) { return s.empty() ? "tl::Shape{}" : cpp_ints(s); }
std::string cpp_axes(const std::vector<std::int64_t>& v) {
  return v.empty() ? "std::vector<std::int64_t>{}" : cpp_ints(v);
}
const std::string* cpp_written(const Attrs& a, std::string_view name) {
  for (const auto& [key, v] : a.items())
    if (const auto* w = std::get_if<Written>(&v); w != nullptr && key == name) return &w->text;
  return nullptr;
}
std::string cpp_attr(const Attrs& a, std::string_view name) {
  for (const auto& [key, v] : a.items()) {
    if (key != name) continue;
    if (const auto* w = std::get_if<Written>(&v)) return w->text;
    if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
    if (const auto* list = std::get_if<std::vector<std::int64_t>>(&v)) return cpp_ints(*list);
    if (const auto* b = std::get_if<bool>(&v)) return cpp_bool(*b);
    if (const auto* d = std::get_if<double>(&v)) return cpp_double(*d);
    if (const auto* t = std::get_if<DType>(&v)) return cpp_dtype(*t);
    throw Error("op attribute '" + std::string(name) + "' has no C++ spelling");
  }
  throw Error("missing op attribute '" + std::string(name) + "'");
}
std::string cpp_dtype(DType t) {
  return fmt::format("tl::DType::{}", t == DType::boolean ? "boolean" : dtype_name(t));
}
std::string cpp_bool(bool b) { return b ? "true" : "false"; }
std::string cpp_double(double v) { return float_literal(v); }

std::string cpp_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + '"';
}

std::string cpp_value(const Tensor& t) {
  if (is_complex(t.dtype())) {  // tl::lax::complex of the two parts
    std::vector<double> re, im;
    for (const std::complex<double>& z : t.astype(DType::c128).to_vector<std::complex<double>>()) {
      re.push_back(z.real());
      im.push_back(z.imag());
    }
    const auto part = [&](const std::vector<double>& p) {
      return cpp_value(tensor(p, t.shape()).astype(real_dtype(t.dtype())));
    };
    return fmt::format("tl::lax::complex({}, {})", part(re), part(im));
  }
  const std::vector<std::string> v = literals(t);
  const bool splat = !v.empty() && std::all_of(v.begin(), v.end(), [&](const std::string& e) { return e == v[0]; });
  if (t.rank() == 0) return fmt::format("tl::scalar_tensor({}, {})", v[0], cpp_dtype(t.dtype()));
  if (splat) return fmt::format("tl::full({}, {}, {})", cpp_shape(t.shape()), v[0], cpp_dtype(t.dtype()));
  std::string items;
  for (std::size_t i = 0; i < v.size(); ++i) items += (i == 0 ? "" : i % 8 == 0 ? ",\n    " : ", ") + v[i];
  std::string s = fmt::format("tl::tensor(std::vector<{}>{{{}}}, {})", vector_type(t.dtype()), items, cpp_shape(t.shape()));
  if (is_half(t.dtype()) || is_narrow(t.dtype())) s += fmt::format(".astype({})", cpp_dtype(t.dtype()));
  return s;
}

std::string cpp_call(std::string_view name, const CppOp& op, const std::vector<std::string>& extra) {
  std::vector<std::string> args;
  for (std::size_t i = 0; i < op.num_operands(); ++i) args.push_back(op.operand(i));
  args.insert(args.end(), extra.begin(), extra.end());
  return fmt::format("{}({})", name, cpp_list(args));
}

void cpp_declare_results(CppOp& op) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < op.num_results(); ++i) names.push_back(op.result(i));
  if (!names.empty()) op.line(fmt::format("tl::Tensor {};", cpp_list(names)));
}

void cpp_assign(CppOp& op, const std::vector<std::string>& targets, const std::vector<std::string>& values) {
  // Through temporaries only when a value is another target (a swap).
  bool clash = false;
  for (std::size_t i = 0; i < values.size(); ++i)
    for (std::size_t j = 0; j < targets.size(); ++j) clash = clash || (i != j && values[i] == targets[j]);
  std::vector<std::string> from = values;
  if (clash) {
    std::vector<std::string> temps;
    for (std::size_t i = 0; i < values.size(); ++i) {
      from[i] = op.fresh("next");
      temps.push_back(fmt::format("{} = {}", from[i], values[i]));
    }
    op.line(fmt::format("const tl::Tensor {};", cpp_list(temps)));
  }
  for (std::size_t i = 0; i < targets.size(); ++i)
    if (targets[i] != from[i]) op.line(fmt::format("{} = {};", targets[i], from[i]));
}

std::vector<std::string> cpp_carry(CppOp& op, std::size_t first, std::size_t count) {
  std::vector<std::string> names, inits;
  for (std::size_t i = 0; i < count; ++i) {
    names.push_back(op.result(i));
    inits.push_back(fmt::format("{} = {}", op.result(i), op.operand(first + i)));
  }
  if (count > 0) op.line(fmt::format("tl::Tensor {};", cpp_list(inits)));
  return names;
}

CppSpelling cpp_fn(std::string fn) {
  return [fn = std::move(fn)](CppOp& op) { return cpp_call(fn, op); };
}

CppSpelling cpp_fn_with(std::string fn, std::vector<std::string> attributes) {
  return [fn = std::move(fn), attributes = std::move(attributes)](CppOp& op) {
    std::vector<std::string> given;
    for (const std::string& a : attributes)
      if (op.attrs().has(a)) given.push_back(cpp_attr(op.attrs(), a));
    return cpp_call(fn, op, given);
  };
}

CppSpelling cpp_infix(std::string sym) {
  return [sym = std::move(sym)](CppOp& op) { return fmt::format("{} {} {}", op.operand(0), sym, op.operand(1)); };
}

std::string cpp_function_name(std::string_view name) {
  std::string out = "fn_";
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  return out;
}

std::string cpp_inline_region(CppOp& op) {
  std::vector<std::string> args;
  for (std::size_t i = 0; i < op.num_operands(); ++i) args.push_back(op.operand(i));
  const std::vector<std::string> res = op.region(0, args);
  for (std::size_t i = 0; i < res.size(); ++i)
    op.line(fmt::format("const tl::Tensor {} = {};", op.result(i), res[i]));
  return "";
}

}  // namespace tlaloc::detail
