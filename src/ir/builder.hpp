// Builds IR by tracing: C++ code calls the public ops on symbolic tensors, and
// every call is recorded as an op of the function being built.
#pragma once

#include <functional>
#include <map>
#include <memory>

#include "core/tensor_impl.hpp"
#include "ir/ir.hpp"

namespace tlaloc::ir {

using RegionBody = std::function<std::vector<Tensor>(std::span<const Tensor>)>;

class Builder final : public detail::Tracer {
 public:
  explicit Builder(Function& f);
  ~Builder() override;
  Builder(const Builder&) = delete;
  Builder& operator=(const Builder&) = delete;

  // A new parameter of the function, as a symbolic tensor.
  Tensor param(const TensorType& t);
  // Sets what the function returns (host tensors become constants).
  void finish(std::span<const Tensor> results);

  std::vector<Tensor> record(const OpDef& op, std::span<const Tensor> in, const Attrs& attrs,
                             std::vector<TensorType> out_types) override;
  // Records an op with regions (loops, branches, reduce bodies).
  std::vector<Tensor> record(const OpDef& op, std::span<const Tensor> in, const Attrs& attrs,
                             std::vector<TensorType> out_types, std::vector<Region> regions);
  // Traces `body` on fresh arguments of the given types into a region.
  Region region(std::span<const TensorType> arg_types, const RegionBody& body);

  // The value a tensor stands for: its symbol, a constant for host data, or, for a
  // symbol of an enclosing trace, a new parameter bound to it (see captures()).
  ValueId value_of(const Tensor& t);
  // Symbolic tensors of enclosing traces that the function used: each became a
  // parameter after the ones made by param(), in this order. Whoever calls the
  // function passes these tensors for them (closure conversion, as in JAX).
  const std::vector<Tensor>& captures() const { return captures_; }
  int level() const { return level_; }
  Tensor tensor_of(ValueId v);
  Location loc;  // stamped on the ops recorded from now on

 private:
  Function& f_;
  int level_;
  Builder* outer_;  // the builder current before this one
  std::vector<Region*> regions_;  // innermost last
  std::map<const detail::TensorImpl*, std::pair<Tensor, ValueId>> constants_;
  std::map<const detail::TensorImpl*, ValueId> lifted_;
  std::vector<Tensor> captures_;
  std::shared_ptr<bool> alive_;  // shared with this builder's symbols
};

// The innermost live trace that owns one of these tensors, or null when all are host
// tensors.
Builder* owner_of(std::span<const Tensor> ts);

// The innermost Builder tracing on this thread, or null. A lowering (OpDef::lower)
// runs under one and uses it to record ops with regions, which the plain op-call
// path cannot express.
Builder* current_builder();

// Traces fn on parameters of the given types into a new function.
Function trace(std::string name, std::span<const TensorType> params,
               const std::function<std::vector<Tensor>(std::span<const Tensor>)>& fn);

}  // namespace tlaloc::ir
