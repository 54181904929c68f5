// tl::kernel (include/tlaloc/kernel.hpp): a user's kernel is a target of custom_call
// (ops/custom_call.hpp), registered under its name at its first call. The op records
// the kernel's attributes under "backend_config."; the target runs the host
// implementation on results it allocates, and its rules call the kernel's.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>

#include "core/check.hpp"
#include "core/tensor_impl.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/cuda_launch.hpp"
#include "ops/custom_call.hpp"
#include "ops/rule.hpp"
#include "ops/xla_ffi.hpp"
#include "tlaloc/kernel.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc {
namespace detail {

struct KernelDef {
  std::string name;
  KernelShapeRule shape;
  HostKernel cpu;
  tlaloc_ffi_handler* ffi = nullptr;
  std::optional<CudaKernel> cuda;
  KernelAttrs attrs;
  KernelRule vjp, jvp;
  std::mutex mu;  // guards `registered` against a first call and an edit at once
  bool registered = false;
};

KernelAttrs kernel_attrs(const Attrs& attrs) {
  KernelAttrs out;
  for (const auto& [key, value] : attrs.items()) {
    if (!key.starts_with(kBackendConfigPrefix)) continue;
    const std::string name = key.substr(kBackendConfigPrefix.size());
    std::visit(
        [&](const auto& v) {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, bool> || std::is_same_v<V, std::int64_t> ||
                        std::is_same_v<V, double> || std::is_same_v<V, std::string>)
            out[name] = v;
        },
        value);
  }
  return out;
}

}  // namespace detail

namespace {

std::string who(const std::string& name) { return fmt::format("kernel('{}')", name); }

// The kernels declared in this process, by name, while a Kernel of them lives.
struct Declared {
  std::mutex mu;
  std::map<std::string, std::weak_ptr<detail::KernelDef>, std::less<>> by_name;
};
Declared& declared() {
  static Declared d;
  return d;
}

// How printed C++ calls the kernel: by its name, which reaches the same kernel in the
// program the printed code is built into.
std::string spelling(const std::string& name, detail::CppOp& op) {
  std::vector<std::string> args;
  for (std::size_t i = 0; i < op.num_operands(); ++i) args.push_back(op.operand(i));
  const std::string kernel = fmt::format("tl::kernel_named({:?})", name);
  if (op.num_results() == 1) return fmt::format("{}({})", kernel, fmt::join(args, ", "));
  return fmt::format("{}.call(std::vector<tl::Tensor>{{{}}})", kernel, fmt::join(args, ", "));
}

// The rule's operands, or its results.
std::vector<Tensor> values_of(const detail::Rule& r, bool results) {
  std::vector<Tensor> v;
  for (std::size_t i = 0; i < (results ? r.num_out() : r.num_in()); ++i)
    v.push_back(results ? r.out(i) : r.in(i));
  return v;
}

// The kernel's rule, given zeros for the seeds that are zero: one value back per
// argument (vjp) or per result (jvp).
std::vector<Tensor> run_rule(const detail::KernelDef& def, const KernelRule& rule, const detail::Rule& r,
                             bool reverse) {
  const std::vector<Tensor> args = values_of(r, false), results = values_of(r, true);
  std::vector<Tensor> seeds;
  const std::vector<Tensor>& like = reverse ? results : args;
  for (std::size_t i = 0; i < like.size(); ++i) {
    const Tensor& s = reverse ? r.cotangent(i) : r.tangent(i);
    seeds.push_back(s.defined() ? s : zeros_like(like[i]));
  }
  const KernelAttrs attrs = detail::kernel_attrs(r.attrs());
  std::vector<Tensor> out = rule(KernelGrad(args, results, seeds, attrs));
  const std::size_t want = reverse ? args.size() : results.size();
  if (out.size() != want)
    detail::fail(who(def.name), "its {} rule gives {} values for {} {}", reverse ? "vjp" : "jvp", out.size(),
                 want, reverse ? "arguments" : "results");
  return out;
}

// Runs the host implementation on results of the declared types.
std::vector<Tensor> run_kernel(const detail::KernelDef& def, std::span<const Tensor> in,
                               const detail::Attrs& attrs, std::span<const detail::TensorType> out) {
  if (!def.cpu && def.ffi == nullptr)
    detail::fail(who(def.name), "has no host implementation (.cpu or .ffi)");
  std::vector<Tensor> results;
  for (const detail::TensorType& t : out) results.push_back(detail::empty(t.shape, t.dtype));
  const KernelAttrs a = detail::kernel_attrs(attrs);
  if (def.ffi != nullptr) {
    detail::call_ffi_handler(def.ffi, who(def.name), in, results, a);
    return results;
  }
  try {
    def.cpu(KernelCall(in, results, a));
  } catch (const std::exception& e) {
    detail::fail(who(def.name), "failed: {}", e.what());
  }
  return results;
}

void register_kernel(const std::shared_ptr<detail::KernelDef>& def) {
  const std::lock_guard lock(def->mu);
  if (def->registered) return;
  {
    const std::shared_ptr<const detail::KernelDef> d = def;
    detail::CustomCallTarget t;
    t.kernel = [d](std::span<const Tensor> in, const detail::Attrs& a,
                   std::span<const detail::TensorType> out) { return run_kernel(*d, in, a, out); };
    t.cpp = [name = d->name](detail::CppOp& op) { return spelling(name, op); };
    if (d->vjp) t.vjp = [d](const detail::Rule& r) { return run_rule(*d, d->vjp, r, true); };
    t.ffi.host = d->ffi;
    if (d->cuda) t.ffi.cuda = detail::cuda_handler(*d->cuda);
    if (d->jvp) t.jvp = [d](const detail::Rule& r) { return run_rule(*d, d->jvp, r, false); };
    try {
      detail::def_custom_call_target(d->name, std::move(t));
    } catch (const Error&) {
      detail::fail<ValueError>(who(d->name), "another kernel (or target) has this name");
    }
  }
  def->registered = true;
}

}  // namespace

void* KernelCall::writable(std::size_t i, DType t) const {
  const Tensor& r = results_[i];
  if (r.dtype() != t)
    throw ValueError(
        fmt::format("KernelCall::result<{}>({}): the result is {}", dtype_name(t), i, dtype_name(r.dtype())));
  return r.impl().data();
}

const KernelAttr& KernelCall::attribute(std::string_view name, std::size_t type_index) const {
  const auto at = attrs_.find(name);
  if (at == attrs_.end())
    throw ValueError(fmt::format("KernelCall::attr: the kernel has no attribute '{}'", name));
  if (at->second.index() != type_index)
    throw ValueError(fmt::format("KernelCall::attr: attribute '{}' has another type", name));
  return at->second;
}

Kernel::Kernel(std::string name) : def_(std::make_shared<detail::KernelDef>()) {
  if (name.empty()) throw ValueError("tl::kernel: a kernel needs a name");
  Declared& d = declared();
  const std::lock_guard lock(d.mu);
  const auto at = d.by_name.find(name);
  if (detail::find_custom_call_target(name) != nullptr || (at != d.by_name.end() && !at->second.expired()))
    detail::fail<ValueError>(who(name), "another kernel (or target) has this name");
  def_->name = std::move(name);
  d.by_name[def_->name] = def_;
}

Kernel kernel_named(std::string_view name) {
  Declared& d = declared();
  const std::lock_guard lock(d.mu);
  const auto at = d.by_name.find(name);
  std::shared_ptr<detail::KernelDef> def = at != d.by_name.end() ? at->second.lock() : nullptr;
  if (!def)
    detail::fail<ValueError>(
        who(std::string(name)),
        "no kernel of this name is declared in this process: printed code calls kernels by "
        "name, so the program it is built into must declare the kernel (tl::kernel) first");
  return Kernel(std::move(def));
}

const std::string& Kernel::name() const { return def_->name; }

void Kernel::editable() const {
  const std::lock_guard lock(def_->mu);
  if (def_->registered)
    detail::fail(who(def_->name), "was called already: declare it whole before its first call");
}

Kernel& Kernel::shape(KernelShapeRule rule) {
  editable();
  def_->shape = std::move(rule);
  return *this;
}
Kernel& Kernel::cpu(HostKernel implementation) {
  editable();
  if (def_->ffi != nullptr)
    detail::fail<ValueError>(who(def_->name), "has an XLA FFI handler already: give .cpu or .ffi");
  def_->cpu = std::move(implementation);
  return *this;
}
Kernel& Kernel::ffi(tlaloc_ffi_handler* handler) {
  editable();
  if (handler == nullptr) detail::fail<ValueError>(who(def_->name), ".ffi was given a null handler");
  if (def_->cpu)
    detail::fail<ValueError>(who(def_->name), "has a .cpu implementation already: give .cpu or .ffi");
  def_->ffi = handler;
  return *this;
}
Kernel& Kernel::attr(std::string name, KernelAttr value) {
  editable();
  def_->attrs[std::move(name)] = std::move(value);
  return *this;
}
Kernel& Kernel::vjp(KernelRule rule) {
  editable();
  def_->vjp = std::move(rule);
  return *this;
}
Kernel& Kernel::jvp(KernelRule rule) {
  editable();
  def_->jvp = std::move(rule);
  return *this;
}

Kernel& Kernel::cuda(const std::filesystem::path& ptx, std::string entry, CudaLaunchRule launch) {
  editable();
  if (entry.empty() || !launch)
    detail::fail<ValueError>(who(def_->name), ".cuda needs an entry name and a launch rule");
  std::ifstream in(ptx, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in || text.str().empty())
    detail::fail<IOError>(who(def_->name), ".cuda: cannot read the PTX file '{}'", ptx.string());
  def_->cuda = detail::CudaKernel{def_->name, text.str(), std::move(entry), std::move(launch)};
  return *this;
}

void Kernel::one_result_expected(std::size_t n) const {
  detail::fail(who(def_->name), "gives {} results; call it with .call to get them all", n);
}

std::vector<Tensor> Kernel::call(std::span<const Tensor> args) const {
  register_kernel(def_);
  const detail::KernelDef& d = *def_;
  if (!d.shape) detail::fail(who(d.name), "has no shape rule (.shape)");
  std::vector<TensorType> in;
  for (const Tensor& a : args) in.push_back({a.dtype(), a.shape()});
  std::vector<detail::TensorType> out;
  for (const TensorType& t : d.shape(in)) out.push_back({t.dtype, t.shape});
  detail::Attrs attrs{{"call_target_name", d.name}, {"api_version", std::int64_t(4)}};
  for (const auto& entry : d.attrs) {
    const std::string key = std::string(detail::kBackendConfigPrefix) + entry.first;
    std::visit([&](const auto& v) { attrs.set(key, v); }, entry.second);
  }
  static const detail::OpDef& custom_call = *detail::find_op("custom_call");
  return detail::call_declared(custom_call, args, attrs, std::move(out));
}

}  // namespace tlaloc
