#include "shapes.hpp"

#include <tlaloc/tlaloc.hpp>

#include <cctype>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>

#include "ad/engine.hpp"
#include "engine_rules.hpp"
#include "ir/op.hpp"
#include "rules.hpp"

namespace tlaloc_grad {
namespace {

namespace tl = tlaloc;
using Args = std::span<const tl::Tensor>;

std::string trimmed(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::optional<tl::Scalar> scalar_literal(const std::string& text) {
  const std::string t = trimmed(text);
  if (t == "true" || t == "false") return tl::Scalar(t == "true");
  if (const auto i = int_literal(t)) return tl::Scalar(*i);
  if (t.empty()) return std::nullopt;
  char* end = nullptr;
  const double d = std::strtod(t.c_str(), &end);
  if (*end != '\0') return std::nullopt;
  return tl::Scalar(d);
}

std::optional<bool> bool_literal(const std::string& text) {
  const std::string t = trimmed(text);
  if (t == "true" || t == "false") return t == "true";
  return std::nullopt;
}

// `tl::DType::f64` and the like.
std::optional<tl::DType> dtype_literal(const std::string& text) {
  const std::string t = trimmed(text);
  const std::size_t at = t.rfind("DType::");
  if (at == std::string::npos) return std::nullopt;
  const std::string name = t.substr(at + 7);
  for (tl::DType d : tl::all_dtypes)
    if (name == tl::dtype_name(d) || (d == tl::DType::boolean && name == "boolean")) return d;
  return std::nullopt;
}

bool known_dtype(const Known& k) { return k.dtype >= 0; }

// Runs f on symbolic tensors of the operands' types: the library's own checks and
// shape rules. An unknown dtype stands in as another operand's (shapes do not
// depend on it), and the result's dtype is then unknown too.
std::optional<Known> run(const std::vector<Known>& in, const std::function<tl::Tensor(Args)>& f) {
  int stand_in = int(tl::DType::f32);
  bool all_dtypes = true;
  for (const Known& k : in) {
    if (known_dtype(k)) stand_in = k.dtype;
    all_dtypes = all_dtypes && known_dtype(k);
  }
  std::vector<tl::detail::TensorType> types;
  for (const Known& k : in) types.push_back({tl::DType(known_dtype(k) ? k.dtype : stand_in), k.shape});
  try {
    const tl::ad::Traced t =
        tl::ad::trace("shape", types, [&](Args a) { return std::vector<tl::Tensor>{f(a)}; });
    const tl::detail::TensorType r = t.f.type(t.f.body.results.at(0));
    return Known{r.shape, all_dtypes ? int(r.dtype) : -1};
  } catch (const tl::ShapeError& e) {
    throw ShapeMismatch(e.what());
  } catch (const tl::Error&) {
    return std::nullopt;  // not a shape error: left to run time
  }
}

// An op's operands split into the known tensors and the scalar texts.
struct Split {
  std::vector<Known> tensors;
  std::vector<std::string> texts;
  std::vector<bool> is_tensor;
  bool all_known = true;
};
Split split(const std::vector<Operand>& ops) {
  Split s;
  for (const Operand& o : ops) {
    s.is_tensor.push_back(o.tensor);
    if (!o.tensor) {
      s.texts.push_back(o.text);
      continue;
    }
    if (o.known)
      s.tensors.push_back(*o.known);
    else
      s.all_known = false;
  }
  return s;
}

// The result of a registry op, by its shape rule (an elementwise op: its operands'
// broadcast shape and common dtype). A scalar operand stands in as a rank-0 tensor, which fixes the shape;
// the dtype is then left unknown (the library types scalars weakly).
std::optional<Known> computed(const tl::detail::OpDef& def, const Split& s) {
  const auto operands = [&](Args a) {
    std::vector<tl::Tensor> all;
    std::size_t t = 0;
    for (bool tensor : s.is_tensor)
      all.push_back(tensor ? a[t++] : tl::scalar_tensor(1.0, a.front().dtype()));
    return all;
  };
  std::optional<Known> r = run(s.tensors, [&](Args a) {
    const std::vector<tl::Tensor> o = operands(a);
    return tl::detail::call1(def, o);
  });
  if (r && !s.texts.empty()) r->dtype = -1;
  return r;
}

// sum(x, axes, keepdims).
std::optional<Known> reduction(const Split& s) {
  tl::Axes axes;
  bool keepdims = false;
  if (!s.texts.empty()) {
    if (const auto list = int_list(s.texts[0]))
      axes = list->empty() ? tl::Axes() : tl::Axes(*list);
    else if (const auto one = int_literal(s.texts[0]))
      axes = tl::Axes(*one);
    else
      return std::nullopt;
  }
  if (s.texts.size() > 1) {
    const auto k = bool_literal(s.texts[1]);
    if (!k) return std::nullopt;
    keepdims = *k;
  }
  return run(s.tensors, [&](Args a) { return tl::sum(a[0], axes, keepdims); });
}

// reshape, broadcast_to and transpose; a literal target shape is known even where
// the operand's is not.
std::optional<Known> layout(const std::string& fn, const std::vector<Operand>& ops, const Split& s) {
  const auto target = s.texts.empty() ? std::nullopt : int_list(s.texts[0]);
  const int dtype = ops[0].known ? ops[0].known->dtype : -1;
  if (!s.all_known) {
    if (fn == "transpose" || !target) return std::nullopt;
    for (std::int64_t d : *target)
      if (d < 0) return std::nullopt;
    return Known{*target, dtype};
  }
  if (fn == "transpose") {
    if (s.texts.empty()) return run(s.tensors, [](Args a) { return tl::transpose(a[0]); });
    if (!target) return std::nullopt;
    return run(s.tensors, [&](Args a) { return tl::transpose(a[0], *target); });
  }
  if (!target) return std::nullopt;
  return run(s.tensors, [&](Args a) {
    return fn == "reshape" ? tl::reshape(a[0], *target) : tl::broadcast_to(a[0], *target);
  });
}

// zeros, ones, full, eye, scalar_tensor, and the *_like functions.
std::optional<Known> created(const std::string& fn, const std::vector<Operand>& ops, const Split& s) {
  const auto dtype_at = [&](std::size_t i, int otherwise) {
    if (i >= s.texts.size()) return otherwise;
    const auto d = dtype_literal(s.texts[i]);
    return d ? int(*d) : -1;
  };
  if (fn == "zeros_like" || fn == "ones_like" || fn == "full_like") {
    if (!ops[0].known) return std::nullopt;
    Known k = *ops[0].known;
    k.dtype = dtype_at(fn == "full_like" ? 1 : 0, k.dtype);
    return k;
  }
  if (!s.tensors.empty() || s.texts.empty()) return std::nullopt;
  if (fn == "scalar_tensor") return Known{{}, dtype_at(1, -1)};
  if (fn == "eye") {
    const auto n = int_literal(s.texts[0]);
    const auto m = s.texts.size() > 1 ? int_literal(s.texts[1]) : std::optional<std::int64_t>(-1);
    if (!n || !m) return std::nullopt;
    return Known{{*n, *m < 0 ? *n : *m}, dtype_at(3, int(tl::DType::f32))};
  }
  const auto shape = int_list(s.texts[0]);
  if (!shape) return std::nullopt;
  if (fn == "zeros" || fn == "ones") return Known{*shape, dtype_at(1, int(tl::DType::f32))};
  // full: f32 for a floating value, i64 for an integer, bool for a bool (tensor.hpp).
  int by_value = -1;
  if (const auto v = s.texts.size() > 1 ? scalar_literal(s.texts[1]) : std::nullopt)
    by_value = int(v->kind() == tl::Scalar::Kind::floating  ? tl::DType::f32
                   : v->kind() == tl::Scalar::Kind::integer ? tl::DType::i64
                                                            : tl::DType::boolean);
  return Known{*shape, dtype_at(2, by_value)};
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
  const Split s = split(operands);
  static const std::set<std::string> creating{"zeros",         "ones",       "full",      "eye",
                                              "scalar_tensor", "zeros_like", "ones_like", "full_like"};
  if (creating.count(fn)) return created(fn, operands, s);
  if (fn == "reshape" || fn == "broadcast_to" || fn == "transpose") return layout(fn, operands, s);
  if (!s.all_known || s.tensors.empty()) return std::nullopt;
  const Rule* rule = find_rule(fn);
  if (rule != nullptr && engine_elementwise(*rule)) return computed(elementwise_op(*rule), s);
  if (fn == "sum") return reduction(s);
  // A function that records one op, called without other arguments (matmul).
  if (rule != nullptr && rule->op != nullptr && s.texts.empty()) return computed(*rule->op, s);
  return std::nullopt;
}

std::string type_text(const Known& k) {
  std::string s = k.dtype >= 0 ? std::string(tl::dtype_name(tl::DType(k.dtype))) : "?";
  s += "[";
  for (std::size_t i = 0; i < k.shape.size(); ++i) s += (i ? "," : "") + std::to_string(k.shape[i]);
  return s + "]";
}

}  // namespace tlaloc_grad
