// The two passes of the engine, shared by jvp.cpp, vjp.cpp and the rules for ops
// with regions (control.cpp).
#pragma once

#include <unordered_map>
#include <unordered_set>

#include "ad/engine.hpp"

namespace tlaloc::ad {

// Forward mode: replays each op and, when an operand has a tangent, calls its JVP
// rule next to it.
class JvpPass {
 public:
  JvpPass(const Function& fn, ir::Builder& builder) : rp(fn, builder) {}
  Replay rp;
  std::unordered_map<ValueId, Tensor> tangent;  // absent: zero

  Tensor tangent_of(ValueId v) const;
  void run(const Region& r);
  void step(const Op& op);
  // Replays r's ops on args with their tangents (undefined: zero) and returns the
  // results' values and tangents.
  std::pair<std::vector<Tensor>, std::vector<Tensor>> region(const Region& r, std::span<const Tensor> args,
                                                             std::span<const Tensor> tangents);
};

// Reverse mode: a forward replay that marks which values depend on the inputs being
// differentiated, then a backward walk calling VJP rules in reverse order.
class VjpPass {
 public:
  VjpPass(const Function& fn, ir::Builder& builder) : rp(fn, builder) {}
  Replay rp;
  std::unordered_set<ValueId> active;
  std::unordered_map<ValueId, Tensor> ct;  // absent: zero
  // Values an op's forward step saved for its backward step (loop residuals).
  std::unordered_map<const Op*, std::vector<Tensor>> saved;
  VjpValues* values = nullptr;  // what the values stand for, where asked
  const Op* rule_of = nullptr;  // the op whose rule gives the shares being added

  bool is_active(ValueId v) const { return active.count(v) != 0; }
  bool op_active(const Op& op) const;
  void forward(const Region& r);
  void backward(const Region& r);
  // One op's step of the backward walk: its rule, where a result has a cotangent.
  void backward(const Op& op);
  void add_ct(ValueId v, const Tensor& g);
  Tensor take_ct(ValueId v);

  // The derivative of a region as a function of its arguments and of the values it
  // captures: replays r on args, seeds its results with `seeds`, and returns the
  // cotangents of r's arguments and of `captured` (undefined: zero). The maps are
  // restored afterwards, so it may run inside another region of the builder.
  std::vector<Tensor> region(const Region& r, std::span<const Tensor> args, const std::vector<bool>& args_active,
                             std::span<const Tensor> seeds, std::span<const ValueId> captured);
};

// Ops with regions (if, case, while, scan, custom rules): their derivatives
// transform the regions. Each returns false when it does not handle the op.
bool control_jvp(JvpPass& p, const Op& op);
bool control_vjp_forward(VjpPass& p, const Op& op);
bool control_vjp_backward(VjpPass& p, const Op& op);

// shard_map (shard_map.cpp): a shard_map of its function's derivative.
void shard_map_jvp(JvpPass& p, const Op& op);
void shard_map_vjp(VjpPass& p, const Op& op);

// What each region of an op applies to its two arguments ("add", ...), for rules.
std::vector<std::string_view> bodies(const Op& op);
// Zeros of a value's type, for places where a value must exist; of an unknown type
// (a build-time trace), zeros like its primal value.
Tensor zeros_of(const TensorType& t);
// t, or zeros of v's type where t is a symbolic zero (control.cpp).
Tensor or_zeros(const Tensor& t, const Function& f, ValueId v);
Tensor zeros_for(const TensorType& t, const Tensor& primal);
// Checks what a rule returned against the value it is the derivative of.
Tensor checked(std::string_view mode, const Function& f, const Op& op, const Tensor& d, const TensorType& want);

}  // namespace tlaloc::ad
