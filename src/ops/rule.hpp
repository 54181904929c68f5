// What a derivative rule sees, and the helpers rules share. A rule is ordinary code
// over the public ops: the AD engine (src/ad) runs it under a trace, so the ops it
// calls are recorded into the transformed function and can be differentiated again.
//
// Zeros are symbolic: an undefined Tensor stands for a tangent or cotangent that is
// zero, and no rule materializes one. Rules use the operands' own shapes
// (`sum_to_shape_of(g, x)`), never sizes written into the rule.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "ir/op.hpp"

namespace tlaloc::detail {

class Rule {
 public:
  Rule(const OpDef& op, std::span<const Tensor> in, std::span<const Tensor> out, const Attrs& attrs,
       std::span<const Tensor> seeds, std::vector<bool> wanted)
      : op_(&op), in_(in), out_(out), attrs_(attrs), seeds_(seeds), wanted_(std::move(wanted)) {}

  const OpDef* op() const { return op_; }
  // For ops with regions: the op region k applies to its two arguments when that is
  // all it does ("add" for a summing scatter or reduce), else empty. Set by the engine.
  std::string_view body(std::size_t k) const { return k < bodies_.size() ? bodies_[k] : std::string_view(); }
  void set_bodies(std::vector<std::string_view> b) { bodies_ = std::move(b); }
  const Tensor& in(std::size_t i) const { return in_[i]; }
  const Tensor& out(std::size_t i = 0) const { return out_[i]; }
  std::size_t num_in() const { return in_.size(); }
  std::size_t num_out() const { return out_.size(); }
  const Attrs& attrs() const { return attrs_; }
  template <class T>
  const T& attr(std::string_view name) const {
    return attrs_.get<T>(name);
  }

  // JVP rules: the tangent of operand i (undefined when zero).
  const Tensor& tangent(std::size_t i) const { return seeds_[i]; }
  bool has_tangent(std::size_t i) const { return seeds_[i].defined(); }
  // VJP rules: the cotangent of result i (undefined when zero).
  const Tensor& cotangent(std::size_t i = 0) const { return seeds_[i]; }
  bool has_cotangent(std::size_t i = 0) const { return seeds_[i].defined(); }
  // VJP rules: whether operand i needs a cotangent (it depends on what is being
  // differentiated); others may be left undefined.
  bool wants(std::size_t i) const { return i < wanted_.size() && wanted_[i]; }

 private:
  const OpDef* op_;
  std::span<const Tensor> in_, out_;
  const Attrs& attrs_;
  std::span<const Tensor> seeds_;
  std::vector<bool> wanted_;
  std::vector<std::string_view> bodies_;
};

// ---- helpers for rules (undefined means zero throughout) ------------------------

// The transpose of broadcast_in_dim(x, _, dims) for x of `shape` and `dtype`: g summed
// back to x's shape.
Tensor unbroadcast(const Tensor& g, const Shape& shape, DType dtype, const std::vector<std::int64_t>& dims);
// a + b, where either may be a zero.
Tensor add_tangents(const Tensor& a, const Tensor& b);
// t * factor, zero when t is.
Tensor scale(const Tensor& t, const Tensor& factor);
// The (co)tangent dtype of a value: its own dtype (only floating values have one).
bool differentiable(DType t);
// A value's type: an unknown one (a build-time trace) may be floating.
inline bool differentiable(const TensorType& t) { return t.unknown || differentiable(t.dtype); }

// For elementwise ops of two operands: the partial derivatives dy/da and dy/db as
// functions of (a, b, y), each called only when its operand needs one.
using Partial = Tensor (*)(const Tensor& a, const Tensor& b, const Tensor& y);
OpDef& binary_derivative(OpDef& op, Partial da, Partial db);
// A rule for an op that is linear in the listed operands (the others are indices
// or shapes): its JVP is the op itself applied to the tangents.
DerivRule linear_jvp(std::vector<std::size_t> linear_operands);

}  // namespace tlaloc::detail
