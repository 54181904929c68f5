// tl::bounded (include/tlaloc/bounded.hpp): sizes read and checked against the
// declaration, arguments padded to the smallest bucket, each bucket a jit program that
// reads its valid lengths as arguments, results sliced back (docs/DYNAMIC_SHAPES.md).
#include "transforms/bounded.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <mutex>

#include "ad/engine.hpp"
#include "ir/builder.hpp"
#include "tlaloc/lax.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::detail {

class BoundedState {
 public:
  std::vector<BoundedDim> dims;
  std::vector<Dims> inputs;
  std::vector<Dims> outputs;
  bool outputs_known = false;
  std::mutex mu;  // guards learning the outputs
  std::shared_ptr<TransformCache> cache = make_cache("bounded");
  std::shared_ptr<TransformCache> exact = make_cache("bounded.check_padding");
};

namespace {

constexpr std::size_t kUnbounded = static_cast<std::size_t>(-1);

std::string dims_text(const Dims& d) {
  std::vector<std::string> axes;
  for (const Axis& a : d.axes) axes.push_back(a.name.empty() ? std::to_string(a.size) : '"' + a.name + '"');
  return fmt::format("tl::dims({})", fmt::join(axes, ", "));
}

std::size_t dim_index(const BoundedState& s, std::string_view name) {
  for (std::size_t k = 0; k < s.dims.size(); ++k)
    if (s.dims[k].name == name) return k;
  return kUnbounded;
}

std::string declared(const BoundedState& s) {
  std::vector<std::string> names;
  for (const BoundedDim& d : s.dims) names.push_back(d.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

void check_dims(const BoundedState& s, const std::vector<Dims>& list, const char* what) {
  for (std::size_t i = 0; i < list.size(); ++i)
    for (const Axis& a : list[i].axes) {
      if (!a.name.empty() && dim_index(s, a.name) == kUnbounded)
        throw ValueError(fmt::format("tl::bounded: {} {} is {}: no bounded dimension '{}' (declared: {})",
                                     what, i, dims_text(list[i]), a.name, declared(s)));
      if (a.name.empty() && a.size < 0)
        throw ValueError(fmt::format("tl::bounded: {} {} is {}: a fixed axis needs a size >= 0", what, i,
                                     dims_text(list[i])));
    }
}

bool is_identifier(const std::string& n) {
  if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0]))) return false;
  return std::all_of(n.begin(), n.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

std::vector<std::int64_t> realize(const BoundedDim& d, const Ladder& l) {
  std::vector<std::int64_t> sizes;
  if (l.sizes.empty()) {
    if (l.smallest < 1)
      throw ValueError(fmt::format(
          "tl::bounded: dimension '{}': powers_of_two({}) needs a smallest size >= 1", d.name, l.smallest));
    for (std::int64_t p = l.smallest; p<d.bound; p = p> d.bound / 2 ? d.bound : p * 2) sizes.push_back(p);
    sizes.push_back(d.bound);
    return sizes;
  }
  for (std::size_t i = 0; i < l.sizes.size(); ++i)
    if (l.sizes[i] < 1 || l.sizes[i] > d.bound || (i > 0 && l.sizes[i] <= l.sizes[i - 1]))
      throw ValueError(
          fmt::format("tl::bounded: dimension '{}': the ladder [{}] must ascend strictly, from 1 up to "
                      "its bound {}",
                      d.name, fmt::join(l.sizes, ", "), d.bound));
  if (l.sizes.back() != d.bound)
    throw ValueError(fmt::format("tl::bounded: dimension '{}': the ladder [{}] does not cover its bound {}",
                                 d.name, fmt::join(l.sizes, ", "), d.bound));
  return l.sizes;
}

// ---- the valid lengths a running bounded function reads -----------------------

struct Scope {
  const BoundedState* s;
  std::vector<Tensor> lengths;
  std::vector<std::int64_t> buckets;
};
thread_local std::vector<Scope> scopes;

class ScopeGuard {
 public:
  explicit ScopeGuard(Scope s) { scopes.push_back(std::move(s)); }
  ~ScopeGuard() { scopes.pop_back(); }
  ScopeGuard(const ScopeGuard&) = delete;
  ScopeGuard& operator=(const ScopeGuard&) = delete;
};

// The innermost running bounded function that declares `dim`, and its index there.
std::pair<const Scope*, std::size_t> scope_of(std::string_view dim, const char* who) {
  for (auto it = scopes.rbegin(); it != scopes.rend(); ++it)
    if (const std::size_t k = dim_index(*it->s, dim); k != kUnbounded) return {&*it, k};
  throw ValueError(
      fmt::format("{}(\"{}\"): no running tl::bounded function declares a dimension '{}'", who, dim, dim));
}

// The size of each dimension among tensors laid out as the call's flat arguments.
std::vector<std::int64_t> sizes_in(const BoundedState& s, std::span<const Tensor> args,
                                   std::span<const std::size_t> slots) {
  std::vector<std::int64_t> sizes(s.dims.size(), -1);
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (slots[i] == kUnbounded) continue;
    const Dims& d = s.inputs[slots[i]];
    for (std::size_t a = 0; a < d.axes.size(); ++a)
      if (!d.axes[a].name.empty()) {
        std::int64_t& size = sizes[dim_index(s, d.axes[a].name)];
        const std::int64_t got = args[i].shape()[a];
        if (size >= 0 && size != got)
          throw ShapeError(
              fmt::format("tl::bounded: dimension '{}' is {} in one argument and {} in argument {} ({})",
                          d.axes[a].name, size, got, slots[i], dims_text(d)));
        size = got;
      }
  }
  return sizes;
}

Shape shape_at(const BoundedState& s, const Shape& shape, std::size_t slot,
               const std::vector<std::int64_t>& sizes) {
  if (slot == kUnbounded) return shape;
  Shape out = shape;
  const Dims& d = s.inputs[slot];
  for (std::size_t a = 0; a < d.axes.size(); ++a)
    if (!d.axes[a].name.empty()) out[a] = sizes[dim_index(s, d.axes[a].name)];
  return out;
}

std::vector<ir::TensorType> types_at(const BoundedState& s, const FlatCall& call,
                                     std::span<const std::size_t> slots,
                                     const std::vector<std::int64_t>& sizes) {
  std::vector<ir::TensorType> types(s.dims.size(), ir::TensorType{DType::i64, {}});
  for (std::size_t i = 0; i < call.args.size(); ++i)
    types.push_back({call.args[i].dtype(), shape_at(s, call.args[i].shape(), slots[i], sizes)});
  return types;
}

}  // namespace

Tensor slice_to(const BoundedState& s, const Tensor& x, const Dims& d,
                const std::vector<std::int64_t>& sizes) {
  std::vector<std::int64_t> stops = x.shape();
  bool cut = false;
  for (std::size_t a = 0; a < d.axes.size(); ++a)
    if (!d.axes[a].name.empty()) {
      stops[a] = sizes[dim_index(s, d.axes[a].name)];
      cut = cut || stops[a] != x.shape()[a];
    }
  return cut ? slice(x, std::vector<std::int64_t>(x.shape().size(), 0), stops) : x;
}

namespace {

std::string bucket_text(const BoundedState& s, const std::vector<std::int64_t>& sizes) {
  std::vector<std::string> parts;
  for (std::size_t k = 0; k < s.dims.size(); ++k)
    parts.push_back(fmt::format("{}={}", s.dims[k].name, sizes[k]));
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

// ---- public entry points -------------------------------------------------------

std::shared_ptr<BoundedState> make_bounded(std::vector<BoundedDim> bounds, std::vector<Dims> inputs,
                                           std::vector<Dims> outputs) {
  auto s = std::make_shared<BoundedState>();
  for (const BoundedDim& b : bounds) {
    if (!is_identifier(b.name))
      throw ValueError(
          fmt::format("tl::bounded: dimension name \"{}\" must be letters, digits and '_', not first a "
                      "digit",
                      b.name));
    if (dim_index(*s, b.name) != kUnbounded)
      throw ValueError(fmt::format("tl::bounded: dimension '{}' is declared twice", b.name));
    if (b.bound < 1)
      throw ValueError(fmt::format("tl::bounded: dimension '{}' has bound {} (< 1)", b.name, b.bound));
    s->dims.push_back({b.name, b.bound, {}});
    s->dims.back().ladder = realize(s->dims.back(), b.ladder.empty() ? powers_of_two() : Ladder{b.ladder, 1});
  }
  s->inputs = std::move(inputs);
  s->outputs = std::move(outputs);
  s->outputs_known = !s->outputs.empty();
  check_dims(*s, s->inputs, "argument");
  check_dims(*s, s->outputs, "result");
  for (const BoundedDim& d : s->dims)
    if (std::none_of(s->inputs.begin(), s->inputs.end(), [&](const Dims& in) {
          return std::any_of(in.axes.begin(), in.axes.end(), [&](const Axis& a) { return a.name == d.name; });
        }))
      throw ValueError(fmt::format("tl::bounded: dimension '{}' is on no argument's dims", d.name));
  return s;
}

void set_ladder(BoundedState& s, std::string_view dim, const Ladder& ladder) {
  if (dim.empty()) {
    for (BoundedDim& d : s.dims) d.ladder = realize(d, ladder);
    return;
  }
  const std::size_t k = dim_index(s, dim);
  if (k == kUnbounded)
    throw ValueError(
        fmt::format("tl::bounded: buckets(\"{}\", ...): no bounded dimension '{}' (declared: {})", dim, dim,
                    declared(s)));
  s.dims[k].ladder = realize(s.dims[k], ladder);
}

std::size_t bounded_traces(const BoundedState& s) { return cache_traces(*s.cache); }
const std::vector<BoundedDim>& bounded_dims(const BoundedState& s) { return s.dims; }
const std::vector<Dims>& bounded_input_dims(const BoundedState& s) { return s.inputs; }

}  // namespace tlaloc::detail

namespace tlaloc {

Tensor valid_length(std::string_view dim) {
  const auto [scope, k] = detail::scope_of(dim, "tl::valid_length");
  return scope->lengths[k];
}

Tensor valid_mask(std::string_view dim) {
  const auto [scope, k] = detail::scope_of(dim, "tl::valid_mask");
  return lax::compare(iota({scope->buckets[k]}, 0), scope->lengths[k], "LT");
}

Tensor valid_mask(std::string_view dim, std::int64_t rank, std::int64_t axis) {
  if (rank < 1 || axis < -rank || axis >= rank)
    throw AxisError(fmt::format("tl::valid_mask(\"{}\", {}, {}): axis out of range", dim, rank, axis));
  const Tensor m = valid_mask(dim);
  Shape shape(static_cast<std::size_t>(rank), 1);
  shape[static_cast<std::size_t>(axis < 0 ? axis + rank : axis)] = m.shape()[0];
  return reshape(m, shape);
}

}  // namespace tlaloc

namespace tlaloc::detail {

std::vector<std::int64_t> bounded_sizes(const BoundedState& s, const FlatCall& call,
                                        std::span<const std::size_t> slots) {
  const auto tensors = static_cast<std::size_t>(
      std::count_if(slots.begin(), slots.end(), [](std::size_t x) { return x != kUnbounded; }));
  if (tensors != s.inputs.size())
    throw ValueError(
        fmt::format("tl::bounded: the function is called with {} tensor arguments, its dims name {}", tensors,
                    s.inputs.size()));
  for (std::size_t i = 0; i < call.args.size(); ++i) {
    if (slots[i] == kUnbounded) continue;
    const Dims& d = s.inputs[slots[i]];
    const Shape& shape = call.args[i].shape();
    bool fits = shape.size() == d.axes.size();
    for (std::size_t a = 0; fits && a < shape.size(); ++a)
      fits = !d.axes[a].name.empty() || d.axes[a].size == shape[a];
    if (!fits)
      throw ShapeError(fmt::format("tl::bounded: argument {} is {}{}, which does not fit its {}", slots[i],
                                   dtype_name(call.args[i].dtype()), shape_string(shape), dims_text(d)));
  }
  std::vector<std::int64_t> sizes = sizes_in(s, call.args, slots);
  for (std::size_t k = 0; k < sizes.size(); ++k)
    if (sizes[k] > s.dims[k].bound)
      throw ShapeError(fmt::format("tl::bounded: dimension '{}' is {}, over its bound {}", s.dims[k].name,
                                   sizes[k], s.dims[k].bound));
  return sizes;
}

std::vector<std::int64_t> bucket_for(const BoundedState& s, const std::vector<std::int64_t>& sizes) {
  std::vector<std::int64_t> b;
  for (std::size_t k = 0; k < sizes.size(); ++k)
    b.push_back(*std::lower_bound(s.dims[k].ladder.begin(), s.dims[k].ladder.end(), sizes[k]));
  return b;
}

std::vector<Tensor> sized_args(const BoundedState& s, const FlatCall& call,
                               std::span<const std::size_t> slots, const std::vector<std::int64_t>& sizes,
                               bool placeholders) {
  std::vector<Tensor> out;
  for (std::size_t i = 0; i < call.args.size(); ++i) {
    const Tensor& x = call.args[i];
    const Shape to = shape_at(s, x.shape(), slots[i], sizes);
    if (slots[i] == kUnbounded || (!placeholders && to == x.shape())) {
      out.push_back(x);
      continue;
    }
    if (placeholders) {
      out.push_back(zeros(to, x.dtype()));
      continue;
    }
    std::vector<std::pair<std::int64_t, std::int64_t>> widths;
    for (std::size_t a = 0; a < to.size(); ++a) widths.emplace_back(0, to[a] - x.shape()[a]);
    out.push_back(pad(x, widths));
  }
  return out;
}

std::vector<Tensor> length_tensors(const std::vector<std::int64_t>& sizes) {
  std::vector<Tensor> out;
  for (std::int64_t n : sizes) out.push_back(full({}, n, DType::i64));
  return out;
}

FlatCall with_lengths(const BoundedState& s, const FlatCall& call, std::span<const std::size_t> slots,
                      std::vector<Tensor> args, std::vector<Tensor> lengths, std::size_t lengths_at) {
  FlatCall out;
  out.static_key = call.static_key;
  out.result_layout = call.result_layout;
  const std::size_t k = lengths.size();
  out.args = std::move(args);
  out.args.insert(out.args.begin() + std::ptrdiff_t(lengths_at), lengths.begin(), lengths.end());
  const BoundedState* state = &s;
  out.fn = [state, inner = call.fn, k, lengths_at,
            at = std::vector<std::size_t>(slots.begin(), slots.end())](std::span<const Tensor> syms) {
    std::vector<Tensor> rest(syms.begin(), syms.begin() + std::ptrdiff_t(lengths_at));
    rest.insert(rest.end(), syms.begin() + std::ptrdiff_t(lengths_at + k), syms.end());
    // The buckets are the sizes of the arguments as they come (padded or exact).
    ScopeGuard guard(
        Scope{state,
              {syms.begin() + std::ptrdiff_t(lengths_at), syms.begin() + std::ptrdiff_t(lengths_at + k)},
              sizes_in(*state, rest, at)});
    return inner(rest);
  };
  return out;
}

// ---- learning the results' dims ------------------------------------------------

namespace {

// The result types of the call traced (not run) at `sizes`.
std::vector<ir::TensorType> traced_results(const BoundedState& s, const FlatCall& call,
                                           std::span<const std::size_t> slots,
                                           const std::vector<std::int64_t>& sizes) {
  const FlatCall wrapped = with_lengths(s, call, slots, {}, length_tensors(sizes), 0);
  return ad::trace("bounded", types_at(s, call, slots, sizes), wrapped.fn).f.result_types();
}

[[noreturn]] void cannot_learn(std::size_t result, const std::string& why) {
  throw ShapeError(
      fmt::format("tl::bounded: cannot tell which axes of result {} follow the bounded dimensions ({}); "
                  "declare the results' dims: tl::bounded(f, bounds, inputs, outputs)",
                  result, why));
}

// `base`: the result types at `bucket`.
std::vector<Dims> learn_outputs(const BoundedState& s, const FlatCall& call,
                                std::span<const std::size_t> slots, const std::vector<std::int64_t>& bucket,
                                const std::vector<ir::TensorType>& base) {
  std::vector<Dims> out(base.size());
  for (std::size_t i = 0; i < base.size(); ++i)
    for (std::int64_t n : base[i].shape) out[i].axes.push_back({"", n});
  for (std::size_t k = 0; k < s.dims.size(); ++k) {
    const std::int64_t b = bucket[k];
    const std::int64_t probe = b > 1 ? b - 1 : (s.dims[k].bound > 1 ? 2 : 0);
    if (probe == 0) continue;  // a bound of 1 is never padded
    std::vector<std::int64_t> sizes = bucket;
    sizes[k] = probe;
    std::vector<ir::TensorType> moved;
    try {
      moved = traced_results(s, call, slots, sizes);
    } catch (const Error& e) {
      cannot_learn(0, fmt::format("tracing it with '{}' = {} failed: {}", s.dims[k].name, probe, e.what()));
    }
    if (moved.size() != base.size()) cannot_learn(0, "the number of results changed");
    for (std::size_t i = 0; i < base.size(); ++i) {
      if (moved[i].shape.size() != base[i].shape.size()) cannot_learn(i, "its rank changed");
      for (std::size_t a = 0; a < base[i].shape.size(); ++a) {
        if (moved[i].shape[a] == base[i].shape[a]) continue;
        Axis& axis = out[i].axes[a];
        if (!axis.name.empty() || base[i].shape[a] != b || moved[i].shape[a] != probe)
          cannot_learn(i, fmt::format("axis {} is {} at '{}' = {} and {} at '{}' = {}", a, base[i].shape[a],
                                      s.dims[k].name, b, moved[i].shape[a], s.dims[k].name, probe));
        axis = {s.dims[k].name, -1};
      }
    }
  }
  return out;
}

// The results' dims, learned (once) with the result types at the call's bucket taken
// from `base` where a run has them, else traced.
const std::vector<Dims>& outputs_for(BoundedState& s, const FlatCall& call,
                                     std::span<const std::size_t> slots,
                                     const std::vector<ir::TensorType>* base) {
  const std::lock_guard lock(s.mu);
  if (!s.outputs_known) {
    const std::vector<std::int64_t> bucket = bucket_for(s, bounded_sizes(s, call, slots));
    s.outputs = learn_outputs(s, call, slots, bucket, base ? *base : traced_results(s, call, slots, bucket));
    s.outputs_known = true;
  }
  return s.outputs;
}

}  // namespace

const std::vector<Dims>& bounded_outputs(BoundedState& s, const FlatCall& call,
                                         std::span<const std::size_t> slots) {
  return outputs_for(s, call, slots, nullptr);
}

namespace {

void check_results(const BoundedState& s, std::span<const Tensor> results) {
  if (results.size() != s.outputs.size())
    throw ValueError(fmt::format("tl::bounded: the function gives {} results, its output dims name {}",
                                 results.size(), s.outputs.size()));
  for (std::size_t i = 0; i < results.size(); ++i) {
    const Dims& d = s.outputs[i];
    const Shape& shape = results[i].shape();
    bool fits = shape.size() == d.axes.size();
    for (std::size_t a = 0; fits && a < shape.size(); ++a)
      fits = !d.axes[a].name.empty() || d.axes[a].size == shape[a];
    if (!fits)
      throw ShapeError(fmt::format("tl::bounded: result {} is {}{}, which does not fit its {}", i,
                                   dtype_name(results[i].dtype()), shape_string(shape), dims_text(d)));
  }
}

// Runs the call at its exact sizes (nothing padded) on the check's own cache.
std::vector<Tensor> run_exact(BoundedState& s, const FlatCall& call, std::span<const std::size_t> slots,
                              const std::vector<std::int64_t>& sizes) {
  ResultLayout layout;
  return run_jit(*s.exact, with_lengths(s, call, slots, call.args, length_tensors(sizes), 0), layout);
}

}  // namespace

std::vector<Tensor> run_bounded(BoundedState& s, const FlatCall& call, std::span<const std::size_t> slots,
                                ResultLayout& layout) {
  const std::vector<std::int64_t> sizes = bounded_sizes(s, call, slots);
  const std::vector<std::int64_t> bucket = bucket_for(s, sizes);
  const FlatCall padded =
      with_lengths(s, call, slots, sized_args(s, call, slots, bucket, false), length_tensors(sizes), 0);
  std::vector<Tensor> results = run_jit(*s.cache, padded, layout);
  std::vector<ir::TensorType> types;  // the bucket's results: what learning the dims starts from
  for (const Tensor& r : results) types.push_back({r.dtype(), r.shape()});
  const std::vector<Dims>& outputs = outputs_for(s, call, slots, &types);
  check_results(s, results);
  for (std::size_t i = 0; i < results.size(); ++i) results[i] = slice_to(s, results[i], outputs[i], sizes);
  return results;
}

namespace {

// How far a padded floating result may stray from the exact one, relative to
// max(1, |exact|): reductions over a padded axis add in another order.
double tolerance(DType t) {
  switch (t) {
    case DType::f64:
      return 1e-9;
    case DType::f32:
      return 1e-4;
    default:
      return 4e-2;
  }
}

std::string index_text(const Shape& shape, std::size_t flat) {
  std::vector<std::int64_t> idx(shape.size());
  for (std::size_t a = shape.size(); a-- > 0;) {
    idx[a] = std::int64_t(flat) % shape[a];
    flat /= std::size_t(shape[a]);
  }
  return fmt::format("[{}]", fmt::join(idx, ", "));
}

void compare_result(const std::string& i, const Tensor& exact, const Tensor& padded,
                    const std::string& bucket) {
  if (exact.shape() != padded.shape() || exact.dtype() != padded.dtype())
    throw ValueError(fmt::format("tl::bounded: check_padding: result {} is {}{} exact and {}{} padded to {}",
                                 i, dtype_name(exact.dtype()), shape_string(exact.shape()),
                                 dtype_name(padded.dtype()), shape_string(padded.shape()), bucket));
  const bool floating = is_floating(exact.dtype());
  const std::vector<double> a = exact.astype(DType::f64).to_vector<double>();
  const std::vector<double> b = padded.astype(DType::f64).to_vector<double>();
  const double tol = floating ? tolerance(exact.dtype()) : 0.0;
  for (std::size_t e = 0; e < a.size(); ++e) {
    const bool both_nan = std::isnan(a[e]) && std::isnan(b[e]);
    if (both_nan || std::abs(a[e] - b[e]) <= tol * std::max(1.0, std::abs(a[e]))) continue;
    throw ValueError(
        fmt::format("tl::bounded: check_padding: result {} differs at element {}: {} at the exact size, "
                    "{} padded to {}; does the function read padded positions without tl::valid_mask?",
                    i, index_text(exact.shape(), e), a[e], b[e], bucket));
  }
}

}  // namespace

void check_bounded_padding(BoundedState& s, const FlatCall& call, std::span<const std::size_t> slots) {
  check_padding_named(s, call, slots, {});
}

void check_padding_named(BoundedState& s, const FlatCall& call, std::span<const std::size_t> slots,
                         std::span<const std::string> names) {
  if (ir::owner_of(call.args) != nullptr)
    throw ValueError("tl::bounded: check_padding runs the function, so it takes host tensors, not a trace's");
  const std::vector<std::int64_t> sizes = bounded_sizes(s, call, slots);
  const std::vector<Tensor> exact = run_exact(s, call, slots, sizes);
  ResultLayout layout;
  const std::vector<Tensor> padded = run_bounded(s, call, slots, layout);
  const std::string bucket = bucket_text(s, bucket_for(s, sizes));
  if (exact.size() != padded.size())
    throw ValueError(
        fmt::format("tl::bounded: check_padding: {} results exact, {} padded", exact.size(), padded.size()));
  for (std::size_t i = 0; i < exact.size(); ++i)
    compare_result(i < names.size() ? fmt::format("{} ('{}')", i, names[i]) : std::to_string(i), exact[i],
                   padded[i], bucket);
}

}  // namespace tlaloc::detail
