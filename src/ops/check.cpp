#include "ops/check.hpp"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <shared_mutex>

#include "core/check.hpp"
#include "core/dispatch_type.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/custom_call.hpp"
#include "ops/rule.hpp"
#include "tlaloc/lax.hpp"

namespace tlaloc::detail {
namespace {

using Kind = StableHloAttr::Kind;

constexpr std::string_view kChecks[] = {"check.expect_eq", "check.expect_eq_const", "check.expect_almost_eq",
                                        "check.expect_almost_eq_const", "check.expect_close"};
constexpr double kDefaultTolerance = 1e-4;  // expect_almost_eq, as StableHLO's interpreter
constexpr std::int64_t kDefaultMaxUlp = 3;  // expect_close

// An IEEE value's position on the number line, so that ULP distance is a difference.
std::int64_t ordinal(double v, DType t) {
  std::int64_t bits = 0;
  int width = 64;
  if (t == DType::f64)
    bits = std::bit_cast<std::int64_t>(v);
  else if (t == DType::f32)
    bits = std::bit_cast<std::int32_t>(float(v)), width = 32;
  else if (t == DType::bf16)
    bits = std::int16_t(bf16(float(v)).bits), width = 16;
  else
    bits = std::int16_t(f16(float(v)).bits), width = 16;
  const std::int64_t sign_mask = std::int64_t(1) << (width - 1);
  return bits < 0 ? -(bits & (sign_mask - 1)) : bits;
}

// An integer element from its little-endian bits.
std::string element_text(std::uint64_t bits, DType t) {
  if (t == DType::boolean) return bits ? "true" : "false";
  if (is_unsigned(t)) return std::to_string(bits);
  const int shift = int(64 - 8 * itemsize(t));
  return std::to_string(std::int64_t(bits << shift) >> shift);
}

bool same_value(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// A floating tensor's values in f64; a complex one's as (real, imaginary) pairs.
std::vector<double> parts_f64(const Tensor& x) {
  if (!is_complex(x.dtype())) return x.astype(DType::f64).to_vector<double>();
  std::vector<double> out;
  out.reserve(std::size_t(2 * x.numel()));
  TLALOC_SWITCH_COMPLEX(x.dtype(), "check", {
    for (const T& z : x.to_vector<T>()) {
      out.push_back(double(z.real()));
      out.push_back(double(z.imag()));
    }
  })
  return out;
}

std::string index_text(const Shape& shape, std::int64_t flat) {
  std::vector<std::int64_t> idx(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  return fmt::format("[{}]", fmt::join(idx, ", "));
}

}  // namespace

bool is_check_name(std::string_view name) {
  for (std::string_view c : kChecks)
    if (name == c) return true;
  return false;
}

void run_check(std::string_view name, const Tensor& actual, const Tensor& expected, const Attrs& attrs) {
  if (actual.shape() != expected.shape() || actual.dtype() != expected.dtype())
    throw CheckFailure(fmt::format("{} failed: got {}{} where {}{} was expected", name,
                                   dtype_name(actual.dtype()), shape_string(actual.shape()),
                                   dtype_name(expected.dtype()), shape_string(expected.shape())));
  const bool floating = is_inexact(actual.dtype());
  const DType part = real_dtype(actual.dtype());
  const std::size_t width = is_complex(actual.dtype()) ? 2 : 1;  // parts per element
  const bool almost = name.find("almost") != std::string_view::npos;
  const bool close = name == "check.expect_close";
  const double tol = attrs.has("tolerance") ? attrs.get<double>("tolerance") : kDefaultTolerance;
  const std::int64_t max_ulp =
      attrs.has("max_ulp_difference") ? attrs.get<std::int64_t>("max_ulp_difference") : kDefaultMaxUlp;
  const std::int64_t min_ulp =
      attrs.has("min_ulp_difference") ? attrs.get<std::int64_t>("min_ulp_difference") : 0;
  // Integers compare exactly, through their bits; floats (each part of a complex value) in f64.
  const Tensor& a = actual;
  const Tensor& b = expected;
  const std::vector<double> fa = floating ? parts_f64(actual) : std::vector<double>();
  const std::vector<double> fb = floating ? parts_f64(expected) : std::vector<double>();
  const auto part_ok = [&](double u, double v) {
    if (close) {
      const std::int64_t d = (std::isnan(u) || std::isnan(v)) ? (same_value(u, v) ? 0 : INT64_MAX)
                                                              : std::abs(ordinal(u, part) - ordinal(v, part));
      return d >= min_ulp && d <= max_ulp;
    }
    return same_value(u, v) || (almost && std::abs(u - v) <= tol);
  };
  const auto text = [&](const std::vector<double>& f, std::size_t i) {
    return width == 1 ? fmt::format("{}", f[i]) : fmt::format("({}, {})", f[i], f[i + 1]);
  };
  int shown = 0;
  std::string bad;
  std::int64_t mismatches = 0;
  for (std::int64_t i = 0; i < a.numel(); ++i) {
    bool ok = true;
    std::string x, y;
    if (floating) {
      const std::size_t at = std::size_t(i) * width;
      for (std::size_t k = 0; k < width; ++k) ok = ok && part_ok(fa[at + k], fb[at + k]);
      x = text(fa, at), y = text(fb, at);
    } else {
      const std::size_t n = itemsize(a.dtype());
      std::uint64_t u = 0, v = 0;
      std::memcpy(&u, static_cast<const char*>(a.raw_data()) + std::size_t(i) * n, n);
      std::memcpy(&v, static_cast<const char*>(b.raw_data()) + std::size_t(i) * n, n);
      ok = u == v;
      x = element_text(u, a.dtype()), y = element_text(v, a.dtype());
    }
    if (ok) continue;
    ++mismatches;
    if (shown++ < 3) bad += fmt::format("; at {} got {}, expected {}", index_text(actual.shape(), i), x, y);
  }
  if (mismatches)
    throw CheckFailure(
        fmt::format("{} failed: {} of {} elements differ{}", name, mismatches, a.numel(), bad));
}

std::vector<TensorType> no_results(std::span<const TensorType>, const Attrs&) { return {}; }

namespace {

// The tl::lax function of check `name` comparing two operands (the _const forms'
// operand-only twins behave alike), and its tolerance or ULP bounds, defaults filled in.
std::string check_function(std::string_view name) {
  std::string fn(name.substr(name.find('.') + 1));
  if (fn.ends_with("_const")) fn.resize(fn.size() - 6);
  return "tl::lax::check_" + fn;
}

std::vector<std::string> check_bounds(std::string_view name, const Attrs& a) {
  if (name.find("almost") != std::string_view::npos)
    return {cpp_double(a.has("tolerance") ? a.get<double>("tolerance") : kDefaultTolerance)};
  if (name == "check.expect_close")
    return {fmt::format("{}", a.has("min_ulp_difference") ? a.get<std::int64_t>("min_ulp_difference") : 0),
            fmt::format("{}", a.has("max_ulp_difference") ? a.get<std::int64_t>("max_ulp_difference")
                                                          : kDefaultMaxUlp)};
  return {};
}

CppSpelling check_spelling(const char* name) {
  return [name](CppOp& op) {
    std::vector<std::string> extra = check_bounds(name, op.attrs());
    if (op.num_operands() == 1) {  // the _const forms: the expected value is an attribute
      extra.insert(extra.begin(), cpp_value(op.attrs().get<Tensor>("value")));
      return cpp_call(check_function(name) + "_const", op, extra);
    }
    return cpp_call(check_function(name), op, extra);
  };
}

// A custom_call runs only as a check (two operands, no results); it prints as that
// check's tl::lax function, which runs the same comparison.
std::string custom_call_spelling(CppOp& op) {
  const std::string& target = op.attrs().get<std::string>("call_target_name");
  if (const CustomCallTarget* t = find_custom_call_target(target)) return t->cpp(op);
  if (!is_check_name(target) || op.num_operands() != 2 || op.num_results() != 0)
    fail(fmt::format("custom_call @{}", target),
         "has no C++ spelling: the host runs only the check.* targets (two operands, no results), got {} "
         "operands "
         "and {} results",
         op.num_operands(), op.num_results());
  return cpp_call(check_function(target), op, check_bounds(target, op.attrs()));
}

OpDef& def_check(const char* name, int inputs, std::vector<StableHloAttr> attrs) {
  return def_op(name)
      .inputs(inputs)
      .side_effects()
      .no_derivative()  // no results
      .keeps_narrow_types()
      .shape_rule(no_results)
      .kernel([name](std::span<const Tensor> in, const Attrs& a, std::span<const TensorType>) {
        run_check(name, in[0], in.size() > 1 ? in[1] : a.get<Tensor>("value"), a);
        return std::vector<Tensor>{};
      })
      .stablehlo({name, std::move(attrs), "check"})
      .cpp(check_spelling(name));
}

const OpDef& expect_eq = def_check("check.expect_eq", 2, {});
const OpDef& expect_eq_const = def_check("check.expect_eq_const", 1, {{"value", Kind::elements}});
const OpDef& expect_almost_eq =
    def_check("check.expect_almost_eq", 2, {StableHloAttr("tolerance", Kind::f32).optional()});
const OpDef& expect_almost_eq_const =
    def_check("check.expect_almost_eq_const", 1,
              {{"value", Kind::elements}, StableHloAttr("tolerance", Kind::f32).optional()});
const OpDef& expect_close = def_check("check.expect_close", 2,
                                      {StableHloAttr("min_ulp_difference", Kind::i64).optional(),
                                       StableHloAttr("max_ulp_difference", Kind::i64).optional()});

// Targets are registered as files initialise and as user kernels are first called,
// while programs may run: the map is guarded, and its entries never move.
struct Targets {
  std::shared_mutex mu;
  std::map<std::string, CustomCallTarget, std::less<>> by_name;
};
Targets& custom_call_targets() {
  static Targets targets;
  return targets;
}

std::string target_of(const Rule& r) { return r.attrs().get<std::string>("call_target_name"); }

// A target's own rule, or a refusal naming it.
std::vector<Tensor> target_rule(const Rule& r, DerivRule CustomCallTarget::*rule) {
  const std::string target = target_of(r);
  const CustomCallTarget* t = find_custom_call_target(target);
  if (t == nullptr || !(t->*rule))
    fail<NotDifferentiableError>(fmt::format("custom_call @{}", target),
                                 "has no {} rule: a derivative cannot pass through it{}",
                                 rule == &CustomCallTarget::vjp ? "reverse-mode (vjp)" : "forward-mode (jvp)",
                                 t == nullptr ? " (an opaque external function)" : " (give the kernel one)");
  return (t->*rule)(r);
}

// custom_call: the host interpreter knows the check targets and those registered by
// def_custom_call_target. Results are declared by the call site, so the op has no
// shape rule.
const OpDef& custom_call =
    def_op("custom_call")
        .side_effects()
        .kernel([](std::span<const Tensor> in, const Attrs& a, std::span<const TensorType> out) {
          const std::string& target = a.get<std::string>("call_target_name");
          if (is_check_name(target) && in.size() == 2 && out.empty()) {
            run_check(target, in[0], in[1], a);
            return std::vector<Tensor>{};
          }
          if (const CustomCallTarget* t = find_custom_call_target(target)) return t->kernel(in, a, out);
          fail(fmt::format("custom_call @{}", target), "is not a target the host interpreter knows");
        })
        .jvp([](const Rule& r) { return target_rule(r, &CustomCallTarget::jvp); })
        .vjp([](const Rule& r) { return target_rule(r, &CustomCallTarget::vjp); })
        .stablehlo({"stablehlo.custom_call",
                    {StableHloAttr("call_target_name", Kind::string),
                     StableHloAttr("has_side_effect", Kind::boolean).optional(),
                     StableHloAttr("backend_config", Kind::string).optional(),
                     StableHloAttr("api_version", Kind::i32).optional(),
                     StableHloAttr("mhlo.sharding", Kind::string).optional()},
                    "custom_call"})
        .cpp(custom_call_spelling);

}  // namespace

bool def_custom_call_target(std::string name, CustomCallTarget target) {
  Targets& t = custom_call_targets();
  const std::unique_lock lock(t.mu);
  if (t.by_name.count(name) != 0 || is_check_name(name))
    fail<ValueError>(fmt::format("custom_call @{}", name), "is defined twice: a target has one definition");
  t.by_name.emplace(std::move(name), std::move(target));
  return true;
}

namespace {

// Calls `fn` on every custom_call of `r` and of the regions inside it.
void for_each_custom_call(const ir::Region& r,
                          const std::function<void(const ir::Op&, const std::string&)>& fn) {
  for (const ir::Op& op : r.ops) {
    for (const ir::Region& inner : op.regions) for_each_custom_call(inner, fn);
    if (op.def == &custom_call) fn(op, op.attrs.get<std::string>("call_target_name"));
  }
}

void for_each_custom_call(const ir::Module& m,
                          const std::function<void(const ir::Op&, const std::string&)>& fn) {
  for (const ir::Function& f : m.functions) for_each_custom_call(f.body, fn);
}

}  // namespace

void refuse_unknown_targets(const ir::Module& m) {
  for_each_custom_call(m, [](const ir::Op& op, const std::string& target) {
    if (!is_check_name(target) && find_custom_call_target(target) == nullptr)
      fail(fmt::format("custom_call @{}", target),
           "is not a target the host interpreter knows{}: register it (tl::kernel, or a PJRT plugin's FFI "
           "extension for an XLA FFI handler) before compiling the program",
           op.loc.line > 0 ? fmt::format(" (line {})", op.loc.line) : "");
  });
}

std::map<std::string, FfiHandlers> ffi_handlers(const ir::Module& m) {
  std::map<std::string, FfiHandlers> out;
  for_each_custom_call(m, [&out](const ir::Op&, const std::string& target) {
    if (const CustomCallTarget* t = find_custom_call_target(target);
        t != nullptr && (t->ffi.host != nullptr || t->ffi.cuda != nullptr))
      out.emplace(target, t->ffi);
  });
  return out;
}

const CustomCallTarget* find_custom_call_target(std::string_view name) {
  Targets& t = custom_call_targets();
  const std::shared_lock lock(t.mu);
  const auto at = t.by_name.find(name);
  return at == t.by_name.end() ? nullptr : &at->second;
}

}  // namespace tlaloc::detail

namespace tlaloc {

void lax::check_expect_eq(const Tensor& actual, const Tensor& expected) {
  detail::call(detail::expect_eq, {actual, expected});
}
void lax::check_expect_eq_const(const Tensor& actual, const Tensor& value) {
  detail::call(detail::expect_eq_const, {actual}, {{"value", value}});
}
void lax::check_expect_almost_eq(const Tensor& actual, const Tensor& expected, double tolerance) {
  detail::call(detail::expect_almost_eq, {actual, expected}, {{"tolerance", tolerance}});
}
void lax::check_expect_almost_eq_const(const Tensor& actual, const Tensor& value, double tolerance) {
  detail::call(detail::expect_almost_eq_const, {actual}, {{"value", value}, {"tolerance", tolerance}});
}
void lax::check_expect_close(const Tensor& actual, const Tensor& expected, std::int64_t min_ulp_difference,
                             std::int64_t max_ulp_difference) {
  detail::call(detail::expect_close, {actual, expected},
               {{"min_ulp_difference", min_ulp_difference}, {"max_ulp_difference", max_ulp_difference}});
}

}  // namespace tlaloc
