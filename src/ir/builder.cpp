#include "ir/builder.hpp"

#include "core/check.hpp"

namespace tlaloc::ir {
namespace {

// The nesting depth of traces on this thread: an inner trace records ops whose
// inputs include its own symbols (docs/ARCHITECTURE.md, "Tracing").
thread_local int trace_depth = 0;
thread_local Builder* innermost = nullptr;

struct IrSymbol final : detail::Symbol {
  bool live() const override { return *alive; }
  ValueId id = 0;
  std::shared_ptr<bool> alive;
};

const OpDef& constant_op() {
  static const OpDef* op = detail::find_op("constant");
  if (op == nullptr) throw Error("the op registry has no 'constant'");
  return *op;
}

}  // namespace

Builder::Builder(Function& f)
    : f_(f), level_(++trace_depth), outer_(innermost), alive_(std::make_shared<bool>(true)) {
  regions_.push_back(&f_.body);
  innermost = this;
}

Builder::~Builder() {
  *alive_ = false;
  --trace_depth;
  innermost = outer_;
}

Builder* current_builder() { return innermost; }

Builder* owner_of(std::span<const Tensor> ts) {
  const detail::Symbol* best = nullptr;
  for (const Tensor& t : ts) {
    const detail::Symbol* s = t.defined() ? t.impl().symbol.get() : nullptr;
    if (s == nullptr) continue;
    if (!s->live())
      throw ValueError("a symbolic tensor from a trace that has ended was passed here (a value computed inside "
                       "grad, jit or trace was kept outside it)");
    if (best == nullptr || s->level > best->level) best = s;
  }
  return best == nullptr ? nullptr : static_cast<Builder*>(best->tracer);
}

Tensor Builder::tensor_of(ValueId v) {
  auto impl = std::make_shared<detail::TensorImpl>();
  const TensorType& t = f_.type(v);
  impl->dtype = t.dtype;
  impl->untyped = t.unknown;
  impl->shape = t.shape;
  impl->numel = is_static(t) ? detail::numel_of(t.shape) : 0;
  auto sym = std::make_shared<IrSymbol>();
  sym->tracer = this;
  sym->level = level_;
  sym->id = v;
  sym->alive = alive_;
  impl->symbol = std::move(sym);
  return Tensor(std::move(impl));
}

Tensor Builder::param(const TensorType& t) {
  const ValueId v = f_.add_value(t);
  f_.body.args.push_back(v);
  return tensor_of(v);
}

ValueId Builder::value_of(const Tensor& t) {
  const detail::TensorImpl& impl = t.impl();
  if (impl.symbol != nullptr) {
    const detail::Symbol& s = *impl.symbol;
    if (s.tracer == this) return static_cast<const IrSymbol&>(s).id;
    if (!s.live())
      throw ValueError("a symbolic tensor from a trace that has ended was used here (a value computed inside "
                       "grad, jit or trace was kept outside it); return it from the function instead");
    if (s.level >= level_)
      throw ValueError("a symbolic tensor of an inner trace was used by an outer one; return it instead");
    auto it = lifted_.find(&impl);
    if (it != lifted_.end()) return it->second;
    const ValueId v = f_.add_value(detail::type_of(t));
    f_.body.args.push_back(v);
    lifted_.emplace(&impl, v);
    captures_.push_back(t);
    return v;
  }
  auto it = constants_.find(&impl);
  if (it != constants_.end()) return it->second.second;
  Attrs attrs{{"value", t}};
  Op op{&constant_op(), {}, {f_.add_value({t.dtype(), t.shape()})}, attrs, {}, loc};
  const ValueId v = op.results[0];
  regions_.back()->ops.push_back(std::move(op));
  // Only the outermost region's constants are shared: an inner region's are not
  // visible outside it.
  if (regions_.size() == 1) constants_.emplace(&impl, std::pair{t, v});
  return v;
}

std::vector<Tensor> Builder::record(const OpDef& op, std::span<const Tensor> in, const Attrs& attrs,
                                    std::vector<TensorType> out_types) {
  return record(op, in, attrs, std::move(out_types), {});
}

std::vector<Tensor> Builder::record(const OpDef& op, std::span<const Tensor> in, const Attrs& attrs,
                                    std::vector<TensorType> out_types, std::vector<Region> regions) {
  Op o{&op, {}, {}, attrs, std::move(regions), loc};
  for (const Tensor& t : in) o.operands.push_back(value_of(t));
  std::vector<Tensor> out;
  for (TensorType& t : out_types) {
    o.results.push_back(f_.add_value(std::move(t)));
    out.push_back(tensor_of(o.results.back()));
  }
  regions_.back()->ops.push_back(std::move(o));
  return out;
}

Region Builder::region(std::span<const TensorType> arg_types, const RegionBody& body) {
  Region r;
  std::vector<Tensor> args;
  for (const TensorType& t : arg_types) {
    r.args.push_back(f_.add_value(t));
    args.push_back(tensor_of(r.args.back()));
  }
  regions_.push_back(&r);
  try {
    std::vector<Tensor> res = body(args);
    for (const Tensor& t : res) r.results.push_back(value_of(t));
  } catch (...) {
    regions_.pop_back();
    throw;
  }
  regions_.pop_back();
  return r;
}

void Builder::finish(std::span<const Tensor> results) {
  f_.body.results.clear();
  for (const Tensor& t : results) f_.body.results.push_back(value_of(t));
}

Function trace(std::string name, std::span<const TensorType> params,
               const std::function<std::vector<Tensor>(std::span<const Tensor>)>& fn) {
  Function f;
  f.name = std::move(name);
  Builder b(f);
  std::vector<Tensor> args;
  for (const TensorType& t : params) args.push_back(b.param(t));
  const std::vector<Tensor> res = fn(args);
  b.finish(res);
  return f;
}

}  // namespace tlaloc::ir
