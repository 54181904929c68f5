#include "oracle_table.hpp"

#include <cmath>
#include <sstream>

namespace oracle {
namespace {

// "nan", "inf" and "-inf" as strings: JSON has no number for them.
nlohmann::json float_json(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

tl::random::Key next_key() {
  static std::uint32_t counter = 0;
  return tl::random::fold_in(tl::random::key(20240613), counter++);
}

}  // namespace

nlohmann::json tensor_json(const Tensor& x) {
  nlohmann::json data = nlohmann::json::array();
  if (tl::is_floating(x.dtype())) {
    for (double v : x.to_vector<double>()) data.push_back(float_json(v));
  } else {
    for (std::int64_t v : x.to_vector<std::int64_t>()) data.push_back(v);
  }
  return {{"dtype", name_of(x.dtype())}, {"shape", x.shape()}, {"data", std::move(data)}};
}

void Table::add(const std::string& name, const std::string& expr, const Ins& inputs,
                const std::function<std::vector<Tensor>(const Ins&)>& fn, std::int64_t terms) {
  nlohmann::json c = {{"name", name}, {"family", family_}, {"expr", expr}, {"terms", terms}};
  nlohmann::json in = nlohmann::json::array();
  for (const auto& x : inputs) in.push_back(tensor_json(x));
  c["inputs"] = std::move(in);
  try {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& y : fn(inputs)) out.push_back(tensor_json(y));
    c["outputs"] = std::move(out);
  } catch (const tl::Error& e) {
    c["error"] = e.what();
  }
  cases_.push_back(std::move(c));
}

void Table::add1(const std::string& name, const std::string& expr, const Ins& inputs,
                 const std::function<Tensor(const Ins&)>& fn, std::int64_t terms) {
  add(
      name, expr, inputs, [&fn](const Ins& in) { return std::vector<Tensor>{fn(in)}; }, terms);
}

Tensor uniform(const Shape& shape, DType t, double lo, double hi) {
  if (t == DType::boolean) return coin(shape);
  if (!tl::is_floating(t)) return ints(shape, std::int64_t(lo), std::int64_t(hi), t);
  return tl::random::uniform(next_key(), shape, t, lo, hi);
}

Tensor normal(const Shape& shape, DType t, double scale) {
  // Drawn in f64 and scaled there, so only the final rounding depends on t.
  return (tl::random::normal(next_key(), shape, DType::f64) * scale).astype(t);
}

Tensor ints(const Shape& shape, std::int64_t lo, std::int64_t hi, DType t) {
  const DType draw = t == DType::i64 ? DType::i64 : DType::i32;
  return tl::random::randint(next_key(), shape, lo, hi, draw).astype(t);
}

Tensor coin(const Shape& shape) { return tl::random::bernoulli(next_key(), 0.5, shape); }

Tensor sample(DType t, const Shape& shape, std::int64_t span) {
  if (t == DType::boolean) return coin(shape);
  if (is_float(t)) return normal(shape, t);
  return tl::is_unsigned(t) ? ints(shape, 0, 2 * span, t) : ints(shape, -span, span, t);
}

Tensor nonzero_ints(const Shape& shape, std::int64_t lo, std::int64_t hi, DType t) {
  const Tensor magnitude = ints(shape, std::max<std::int64_t>(lo, 1), hi, DType::i64);
  return tl::where(coin(shape), magnitude, tl::neg(magnitude)).astype(t);
}

Tensor literal(const std::vector<double>& values, const Shape& shape, DType t) {
  return tl::tensor(values, shape).astype(t);
}

std::string py_tuple(const Ints& v) {
  std::ostringstream s;
  s << '(';
  for (std::size_t i = 0; i < v.size(); ++i) s << (i ? ", " : "") << v[i];
  if (v.size() == 1) s << ',';
  s << ')';
  return s.str();
}

std::string py_list(const Ints& v) {
  std::ostringstream s;
  s << '[';
  for (std::size_t i = 0; i < v.size(); ++i) s << (i ? ", " : "") << v[i];
  s << ']';
  return s.str();
}

std::string py_bool(bool v) { return v ? "True" : "False"; }

std::string torch_dtype(DType t) {
  switch (t) {
    case DType::f32:
      return "torch.float32";
    case DType::f64:
      return "torch.float64";
    case DType::bf16:
      return "torch.bfloat16";
    case DType::f16:
      return "torch.float16";
    case DType::i8:
      return "torch.int8";
    case DType::i32:
      return "torch.int32";
    case DType::i64:
      return "torch.int64";
    case DType::u8:
      return "torch.uint8";
    case DType::i16:
      return "torch.int16";
    case DType::u16:
    case DType::u32:
    case DType::u64:
      return "?";  // not in PyTorch 1.13: no case uses them (torch_dtypes)
    default:
      return "?";  // nor are the narrow types
    case DType::boolean:
      return "torch.bool";
    case DType::c64:
      return "torch.complex64";
    case DType::c128:
      return "torch.complex128";
  }
  return "?";
}

std::string name_of(DType t) { return std::string(tl::dtype_name(t)); }

std::string shape_str(const Shape& s) {
  std::ostringstream o;
  o << '[';
  for (std::size_t i = 0; i < s.size(); ++i) o << (i ? "," : "") << s[i];
  o << ']';
  return o.str();
}

}  // namespace oracle
