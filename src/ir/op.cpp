#include "ir/op.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

#include "core/tensor_impl.hpp"

namespace tlaloc::detail {

void Attrs::set(std::string name, AttrValue v) {
  for (auto& [k, old] : items_) {
    if (k == name) {
      old = std::move(v);
      return;
    }
  }
  items_.emplace_back(std::move(name), std::move(v));
}

const AttrValue* Attrs::find(std::string_view name) const {
  for (const auto& [k, v] : items_)
    if (k == name) return &v;
  return nullptr;
}

void throw_written(std::string_view name, const Written& w) {
  throw UnknownTypeError("op attribute '" + std::string(name) + "' is known at run time only: " + w.text);
}

bool Attrs::any_written() const {
  return std::any_of(items_.begin(), items_.end(),
                     [](const auto& item) { return std::holds_alternative<Written>(item.second); });
}

OpDef::TypeOrigin OpDef::type_origin(const Attrs& attrs) const {
  if (type_origin_) return type_origin_(attrs);
  if (!elementwise_) return {};
  return {TypeOrigin::kBroadcast, no_derivative_ ? TypeOrigin::kOwn : TypeOrigin::kCommon};
}

std::vector<TensorType> OpDef::infer(std::span<const TensorType> in, const Attrs& attrs) const {
  if (arity_ >= 0 && std::size_t(arity_) != in.size())
    fail<ValueError>(name_, "takes {} inputs, got {}", arity_, in.size());
  if (!shape_rule_) fail(name_, "has no shape rule");
  return shape_rule_(in, attrs);
}

std::vector<Tensor> OpDef::run(std::span<const Tensor> in, const Attrs& attrs,
                               std::span<const TensorType> out) const {
  if (region_kernel_) fail(name_, "needs its regions to run (only the interpreter runs it)");
  if (!kernel_) fail(name_, "has no host kernel");
  if (needs_widening(in, out)) return run_widened(in, attrs, out, nullptr);
  return kernel_(in, attrs, out);
}

std::vector<Tensor> OpDef::run(std::span<const Tensor> in, const Attrs& attrs,
                               std::span<const TensorType> out, const RegionCalls& regions) const {
  if (!region_kernel_) return run(in, attrs, out);
  if (needs_widening(in, out)) return run_widened(in, attrs, out, &regions);
  return region_kernel_(in, attrs, out, regions);
}

namespace {
struct Registry {
  std::mutex mu;
  std::map<std::string, std::unique_ptr<OpDef>, std::less<>> ops;
};
Registry& registry() {
  static Registry r;
  return r;
}
}  // namespace

OpDef& def_op(std::string_view name) {
  auto& r = registry();
  std::lock_guard lock(r.mu);
  auto [it, inserted] = r.ops.try_emplace(std::string(name), nullptr);
  if (!inserted) throw Error("op '" + std::string(name) + "' is declared twice");
  it->second = std::make_unique<OpDef>(std::string(name));
  return *it->second;
}

const OpDef* find_op(std::string_view name) {
  auto& r = registry();
  std::lock_guard lock(r.mu);
  auto it = r.ops.find(name);
  return it == r.ops.end() ? nullptr : it->second.get();
}

std::vector<const OpDef*> all_ops() {
  auto& r = registry();
  std::lock_guard lock(r.mu);
  std::vector<const OpDef*> out;
  for (const auto& [k, v] : r.ops) out.push_back(v.get());
  return out;
}

const OpDef* find_called_as(std::string_view fn) {
  for (const OpDef* def : all_ops()) {
    const auto& names = def->public_call().names;
    if (std::find(names.begin(), names.end(), fn) != names.end()) return def;
  }
  return nullptr;
}

TensorType type_of(const Tensor& t) {
  const TensorImpl& impl = t.impl();
  if (impl.untyped) return unknown_type();
  return {impl.dtype, impl.shape};
}

std::vector<Tensor> call(const OpDef& op, std::span<const Tensor> in, const Attrs& attrs) {
  Symbol* owner = nullptr;
  bool unknown = false;
  std::vector<TensorType> types;
  types.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (!in[i].defined()) fail<ValueError>(op.name(), "input {} is an undefined tensor", i);
    const TensorImpl& impl = in[i].impl();
    Symbol* s = impl.symbol.get();
    if (s != nullptr && !s->live())
      fail<ValueError>(op.name(),
                       "input {} is a symbolic tensor from a trace that has ended (a value computed inside "
                       "grad, jit or trace was kept outside it); return it from the function instead",
                       i);
    if (s != nullptr && (owner == nullptr || s->level > owner->level)) owner = s;
    unknown = unknown || impl.untyped;
    types.push_back({impl.dtype, impl.shape, impl.untyped});
  }
  // A build-time value: the results' types are known only at run time.
  if (unknown)
    return owner->tracer->record(op, in, attrs,
                                 std::vector<TensorType>(op.results_for(in.size(), attrs), unknown_type()));
  std::vector<TensorType> out_types = op.infer(types, attrs);
  if (owner != nullptr) return owner->tracer->record(op, in, attrs, std::move(out_types));
  return op.run(in, attrs, out_types);
}

std::vector<Tensor> call_declared(const OpDef& op, std::span<const Tensor> in, const Attrs& attrs,
                                  std::vector<TensorType> out_types) {
  Symbol* owner = nullptr;
  for (const Tensor& t : in)
    if (Symbol* s = t.impl().symbol.get(); s != nullptr && (owner == nullptr || s->level > owner->level))
      owner = s;
  if (owner != nullptr) return owner->tracer->record(op, in, attrs, std::move(out_types));
  return op.run(in, attrs, out_types);
}

Tensor call1(const OpDef& op, std::span<const Tensor> in, const Attrs& attrs) {
  std::vector<Tensor> out = call(op, in, attrs);
  if (out.size() != 1) fail(op.name(), "returns {} values where one was expected", out.size());
  return std::move(out[0]);
}

std::size_t check_inputs_and_inits(std::string_view op, std::span<const TensorType> in) {
  if (in.empty() || in.size() % 2 != 0)
    fail<ValueError>(op, "takes N inputs and N init values, got {} operands", in.size());
  const std::size_t n = in.size() / 2;
  for (std::size_t i = 0; i < n; ++i) {
    if (in[i].shape != in[0].shape)
      fail<ShapeError>(op, "needs inputs of one shape, got {} and {}", shape_string(in[0].shape),
                       shape_string(in[i].shape));
    if (!in[n + i].shape.empty())
      fail<ShapeError>(op, "init value {} must be a scalar, got {}", i, shape_string(in[n + i].shape));
  }
  return n;
}

Shape broadcast_shapes(std::string_view op, const Shape& a, const Shape& b) {
  const std::size_t r = std::max(a.size(), b.size());
  Shape out(r);
  for (std::size_t i = 0; i < r; ++i) {
    const std::int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    const std::int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da != db && da != 1 && db != 1)
      fail<ShapeError>(op, "cannot broadcast shapes {} and {}", shape_string(a), shape_string(b));
    out[i] = da == 1 ? db : da;
  }
  return out;
}

}  // namespace tlaloc::detail
