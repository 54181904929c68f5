// The public transforms (include/tlaloc/transforms.hpp) over the engine: tracing,
// the per-signature cache, and running a transformed program.
#include <fmt/format.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>

#include "ad/engine.hpp"
#include "ad/programs.hpp"
#include "core/tensor_impl.hpp"
#include "interp/interpreter.hpp"
#include "ir/passes.hpp"
#include "tlaloc/ops.hpp"
#include "tlaloc/transforms.hpp"
#include "transforms/apply.hpp"
#include "transforms/cached_programs.hpp"

namespace tlaloc::detail {

struct CacheEntry {
  ir::Function f;
  std::unique_ptr<interp::Program> program;
  ResultLayout layout;
  std::once_flag once;
};

class TransformCache {
 public:
  TransformCache(std::string n, std::string o) : name(std::move(n)), origin(std::move(o)) {}
  std::string name;
  std::string origin;  // the transformed callable's type, or empty
  std::mutex mu;
  std::unordered_map<std::string, std::shared_ptr<CacheEntry>> entries;
  std::atomic<std::size_t> traces{0};
};

std::shared_ptr<TransformCache> make_cache(std::string name, std::string origin) {
  return std::make_shared<TransformCache>(std::move(name), std::move(origin));
}
std::size_t cache_traces(const TransformCache& c) { return c.traces.load(); }

void append_static_key(std::string& key, double v) { key += fmt::format("d{};", v); }
void append_static_key(std::string& key, long long v) { key += fmt::format("i{};", v); }
void append_static_key(std::string& key, const std::string& v) { key += fmt::format("s{}:{};", v.size(), v); }

void check_argnums(const std::vector<std::size_t>& which, std::span<const std::size_t> counts,
                   std::span<const bool> is_tensor) {
  if (which.empty()) throw ValueError("tl::grad: argnums lists no argument");
  for (std::size_t w : which) {
    if (w >= counts.size())
      throw ValueError(
          fmt::format("tl::grad: argnums names argument {} but the call has {} arguments", w, counts.size()));
    if (!is_tensor[w])
      throw ValueError(fmt::format("tl::grad: argument {} is not a tensor and cannot be differentiated", w));
  }
}

namespace {

std::vector<TensorType> types_of(std::span<const Tensor> args) {
  std::vector<TensorType> t;
  for (const Tensor& a : args) {
    if (!a.defined()) throw ValueError("a transformed function was called with an undefined tensor");
    t.push_back({a.dtype(), a.shape()});
  }
  return t;
}

std::string signature(std::string_view mode, const FlatCall& call, const std::vector<bool>& wrt) {
  std::string key(mode);
  key += '|';
  for (const Tensor& a : call.args) {
    key += dtype_name(a.dtype());
    for (std::int64_t d : a.shape()) key += fmt::format(",{}", d);
    key += ';';
  }
  for (bool w : wrt) key += w ? '1' : '0';
  key += '|';
  key += call.static_key;
  return key;
}

void check_wrt(std::string_view mode, std::span<const Tensor> args, const std::vector<bool>& wrt) {
  for (std::size_t i = 0; i < args.size(); ++i)
    if (wrt[i] && !is_floating(args[i].dtype()))
      throw DTypeError(
          fmt::format("tl::{}: tensor argument {} is {}{}; only floating-point tensors can be "
                      "differentiated",
                      mode, i, dtype_name(args[i].dtype()), shape_string(args[i].shape())));
}

std::vector<Tensor> with_captures(std::span<const Tensor> args, const std::vector<Tensor>& captures) {
  std::vector<Tensor> all(args.begin(), args.end());
  all.insert(all.end(), captures.begin(), captures.end());
  return all;
}

// A transform made anew for every call (`tl::grad(f)(x)` in a loop) traces every
// call. Counts the first traces of transforms of one callable type with one
// signature across objects, and warns once when a third comes.
void note_first_trace(const TransformCache& c, const std::string& key) {
  static std::mutex mu;
  static std::map<std::string, int> first_traces;
  static std::set<std::string> warned;
  constexpr int kWarnAt = 3;
  const std::lock_guard lock(mu);
  if (++first_traces[c.name + '\n' + c.origin + '\n' + key] != kWarnAt ||
      !warned.insert(c.name + '\n' + c.origin).second)
    return;
  std::fprintf(
      stderr,
      "tl::%s: warning: %d separate tl::%s of the same function traced the same signature; a transform "
      "made anew on each call (tl::%s(f)(x) in a loop) traces every call. Make it once (auto df = "
      "tl::%s(f);) and call df; pass host values that change as arguments, since captured ones are fixed "
      "at the trace. TLALOC_LOG_TRACES=1 logs every trace.\n",
      c.name.c_str(), kWarnAt, c.name.c_str(), c.name.c_str(), c.name.c_str());
}

// The cached program for this call, traced and made by `make` on a miss. A function
// that closes over symbols of an enclosing trace gets a fresh entry, never cached (it
// is only valid for this call); `captures` then receives the symbols it closes over.
std::shared_ptr<CacheEntry> entry_for(TransformCache& c, const std::string& key, const FlatCall& call,
                                      const std::function<ir::Function(const ad::Traced&)>& make,
                                      std::vector<Tensor>& captures) {
  {
    std::lock_guard lock(c.mu);
    auto it = c.entries.find(key);
    if (it != c.entries.end()) return it->second;
  }
  const std::vector<TensorType> types = types_of(call.args);
  const std::size_t n = ++c.traces;
  if (n == 1 && !c.origin.empty()) note_first_trace(c, key);
  if (const char* log = std::getenv("TLALOC_LOG_TRACES"); log != nullptr && std::string_view(log) == "1")
    std::fprintf(stderr, "tlaloc: tracing %s (trace %zu) for %s\n", c.name.c_str(), n, key.c_str());
  ad::Traced t = ad::trace(c.name, types, call.fn);
  auto fresh = std::make_shared<CacheEntry>();
  fresh->f = ir::optimize(make(t));
  fresh->layout = *call.result_layout;
  if (!t.captures.empty()) {
    captures = std::move(t.captures);
    return fresh;
  }
  std::lock_guard lock(c.mu);
  return c.entries.try_emplace(key, fresh).first->second;
}

// Traces (or finds) the program for this call and runs it.
std::vector<Tensor> cached_run(TransformCache& c, const std::string& key, const FlatCall& call,
                               const std::function<ir::Function(const ad::Traced&)>& make,
                               ResultLayout* layout) {
  std::vector<Tensor> captures;
  const std::shared_ptr<CacheEntry> e = entry_for(c, key, call, make, captures);
  if (layout != nullptr) *layout = e->layout;
  if (!captures.empty()) return transforms::apply(e->f, with_captures(call.args, captures));
  if (ir::owner_of(call.args) != nullptr) return transforms::apply(e->f, call.args);
  std::call_once(e->once, [&] { e->program = std::make_unique<interp::Program>(e->f); });
  return e->program->run(call.args);
}

// The cached program for a call made outside any trace.
const ir::Function& program_for(TransformCache& c, const std::string& key, const FlatCall& call,
                                const std::function<ir::Function(const ad::Traced&)>& make) {
  if (ir::owner_of(call.args) != nullptr)
    throw ValueError(fmt::format("tl::{}: the program's text is only available outside a trace", c.name));
  std::vector<Tensor> captures;
  const std::shared_ptr<CacheEntry> e = entry_for(c, key, call, make, captures);
  if (!captures.empty())
    throw ValueError(fmt::format("tl::{}: the function closes over a value of an enclosing trace", c.name));
  return e->f;
}

}  // namespace

namespace {

std::function<ir::Function(const ad::Traced&)> make_grad(const std::vector<bool>& wrt, bool with_value) {
  return [wrt, with_value](const ad::Traced& t) {
    const std::string_view mode = with_value ? "value_and_grad" : "grad";
    if (t.f.body.results.size() != 1)
      throw ValueError(fmt::format("tl::{}: the function must return one scalar tensor, it returns {} values",
                                   mode, t.f.body.results.size()));
    return ad::grad_program(t.f, wrt, with_value);
  };
}

ir::Function same_function(const ad::Traced& t) { return t.f; }

}  // namespace

std::vector<Tensor> run_grad(TransformCache& c, const FlatCall& call, const std::vector<bool>& wrt,
                             bool with_value) {
  const std::string_view mode = with_value ? "value_and_grad" : "grad";
  check_wrt(mode, call.args, wrt);
  return cached_run(c, signature(mode, call, wrt), call, make_grad(wrt, with_value), nullptr);
}

std::vector<Tensor> run_jit(TransformCache& c, const FlatCall& call, ResultLayout& layout) {
  return cached_run(c, signature("jit", call, {}), call, same_function, &layout);
}

const ir::Function& cached_grad_program(TransformCache& c, const FlatCall& call, const std::vector<bool>& wrt,
                                        bool with_value) {
  const std::string_view mode = with_value ? "value_and_grad" : "grad";
  check_wrt(mode, call.args, wrt);
  return program_for(c, signature(mode, call, wrt), call, make_grad(wrt, with_value));
}

const ir::Function& cached_jit_program(TransformCache& c, const FlatCall& call) {
  return program_for(c, signature("jit", call, {}), call, same_function);
}

std::vector<Tensor> run_jvp(const FlatFn& fn, std::span<const Tensor> primals, std::span<const Tensor> tangents) {
  check_jvp_arguments({primals.begin(), primals.end()}, {tangents.begin(), tangents.end()});
  const std::vector<bool> wrt(primals.size(), true);
  const ad::Traced t = ad::trace("jvp", types_of(primals), fn);
  std::vector<bool> all = wrt;
  all.resize(t.f.body.args.size(), false);
  const ir::Function g = ir::optimize(ad::jvp(t.f, all));
  std::vector<Tensor> args = with_captures(primals, t.captures);
  args.insert(args.end(), tangents.begin(), tangents.end());
  return transforms::apply(g, args);
}

class PullbackState {
 public:
  ir::Function f;  // (args, captures, cotangents) -> (results, cotangents of the floating args)
  std::vector<Tensor> args;
  std::vector<bool> wrt;
  std::vector<TensorType> results;
};

std::pair<std::vector<Tensor>, std::shared_ptr<PullbackState>> run_vjp(const FlatFn& fn,
                                                                      std::span<const Tensor> primals) {
  const ad::Traced t = ad::trace("vjp", types_of(primals), fn);
  auto s = std::make_shared<PullbackState>();
  for (const Tensor& p : primals) s->wrt.push_back(is_floating(p.dtype()));
  std::vector<bool> all = s->wrt;
  all.resize(t.f.body.args.size(), false);
  s->f = ir::optimize(ad::vjp(t.f, all));
  s->args = with_captures(primals, t.captures);
  s->results = t.f.result_types();
  std::vector<Tensor> out = transforms::apply(ir::optimize(t.f), s->args);
  return {std::move(out), std::move(s)};
}

std::vector<Tensor> run_pullback(const PullbackState& s, std::span<const Tensor> cotangents) {
  if (cotangents.size() != s.results.size())
    throw ValueError(fmt::format("tl::vjp: the pullback takes {} cotangents, got {}", s.results.size(),
                                 cotangents.size()));
  for (std::size_t i = 0; i < cotangents.size(); ++i)
    if (!cotangents[i].defined() || type_of(cotangents[i]) != s.results[i])
      throw ValueError(fmt::format("tl::vjp: cotangent {} must have the result's type {}{}", i,
                                   dtype_name(s.results[i].dtype), shape_string(s.results[i].shape)));
  std::vector<Tensor> args = s.args;
  args.insert(args.end(), cotangents.begin(), cotangents.end());
  const std::vector<Tensor> r = transforms::apply(s.f, args);
  std::vector<Tensor> out;
  std::size_t k = s.results.size();
  for (bool w : s.wrt) out.push_back(w ? r[k++] : Tensor());
  return out;
}

Tensor run_jacobian(const FlatFn& fn, const Tensor& x, bool forward) {
  const std::string_view mode = forward ? "jacfwd" : "jacrev";
  check_wrt(mode, std::span<const Tensor>(&x, 1), {true});
  const ad::Traced t = ad::trace(std::string(mode), types_of(std::span<const Tensor>(&x, 1)), fn);
  if (t.f.body.results.size() != 1)
    throw ValueError(fmt::format("tl::{}: the function must return one tensor", mode));
  const TensorType y = t.f.type(t.f.body.results[0]);
  std::vector<bool> wrt(t.f.body.args.size(), false);
  wrt[0] = true;
  const ir::Function g = ir::optimize(forward ? ad::jvp(t.f, wrt) : ad::vjp(t.f, wrt));
  std::vector<Tensor> args = with_captures(std::span<const Tensor>(&x, 1), t.captures);
  const bool host = ir::owner_of(args) == nullptr;
  std::unique_ptr<interp::Program> program = host ? std::make_unique<interp::Program>(g) : nullptr;
  const TensorType& basis = forward ? TensorType{x.dtype(), x.shape()} : y;
  const std::int64_t n = numel_of(basis.shape);
  std::vector<Tensor> parts;
  for (std::int64_t i = 0; i < n; ++i) {
    std::vector<Tensor> a = args;
    a.push_back(reshape(one_hot(scalar_tensor(i, DType::i64), n, basis.dtype), basis.shape));
    const std::vector<Tensor> r = host ? program->run(a) : transforms::apply(g, a);
    parts.push_back(r.at(1));
  }
  Shape shape = y.shape;
  shape.insert(shape.end(), x.shape().begin(), x.shape().end());
  if (n == 0) return zeros(shape, y.dtype);
  return reshape(stack(parts, forward ? -1 : 0), shape);
}

}  // namespace tlaloc::detail

namespace tlaloc {

void check_jvp_arguments(const std::vector<Tensor>& primals, const std::vector<Tensor>& tangents) {
  if (primals.size() != tangents.size())
    throw ValueError(fmt::format("tl::jvp: {} primals but {} tangents", primals.size(), tangents.size()));
  for (std::size_t i = 0; i < primals.size(); ++i) {
    if (!tangents[i].defined() || tangents[i].dtype() != primals[i].dtype() ||
        tangents[i].shape() != primals[i].shape())
      throw ValueError(fmt::format("tl::jvp: tangent {} must have the primal's type {}{}", i,
                                   dtype_name(primals[i].dtype()), shape_string(primals[i].shape())));
  }
  detail::check_wrt("jvp", primals, std::vector<bool>(primals.size(), true));
}

}  // namespace tlaloc
