// The AD engine's transforms over IR functions. Every derivative, whichever front
// end made the function, comes from here and from the ops' rules (src/ops/rule.hpp).
//
//   jvp(f)  : (params, tangents of the wrt params) -> (results, tangents of results)
//   vjp(f)  : (params, cotangents of results)      -> (results, cotangents of wrt params)
//
// Both replay f's ops into a new function and call each op's rule beside it; zeros
// stay symbolic (an undefined Tensor) and are materialized only where a result or
// a loop-carried value needs one. The callers run ir::optimize on what they get.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/builder.hpp"
#include "ir/ir.hpp"

namespace tlaloc::ad {

using ir::Function;
using ir::Op;
using ir::Region;
using ir::ValueId;
using detail::TensorType;
using FlatFn = std::function<std::vector<Tensor>(std::span<const Tensor>)>;

// Forward mode. wrt[i]: parameter i gets a tangent parameter (in order, after all
// the primal parameters).
Function jvp(const Function& f, const std::vector<bool>& wrt);

// What the values of a reverse sweep stand for (VjpPass::values, modes.hpp), for a
// printer that names them (tlaloc-grad): each cotangent of a value of f as its shares
// are summed, in order: the sweep's value holding it so far, and the op of f whose
// rule gave the share (null for a seed).
struct VjpValues {
  struct Cotangent {
    ValueId of, value;
    const Op* by;
  };
  std::vector<Cotangent> cotangents;
};

// Reverse mode. With seed_ones the function must have one scalar result, whose
// cotangent is 1 (no cotangent parameter): the form grad uses.
Function vjp(const Function& f, const std::vector<bool>& wrt, bool seed_ones = false);

// A traced function with the symbolic tensors of enclosing traces it captured:
// they are its last parameters, after the `explicit_params` ones.
struct Traced {
  Function f;
  std::vector<Tensor> captures;
  std::size_t explicit_params = 0;
};
Traced trace(std::string name, std::span<const TensorType> types, const FlatFn& fn);

// f's ops recorded in place into the trace that owns one of args. The engine
// records programs and never runs one: with host tensors only, this throws
// (transforms::apply, above the interpreter, runs them).
std::vector<Tensor> record_call(const Function& f, std::span<const Tensor> args);

// Replays ops of a function into a builder, mapping the old values to tensors of
// the builder.
class Replay {
 public:
  Replay(const Function& fn, ir::Builder& builder) : f(fn), b(builder) {}
  const Function& f;
  ir::Builder& b;
  std::unordered_map<ValueId, Tensor> primal;

  const Tensor& at(ValueId v) const;
  std::vector<Tensor> operands(const Op& op) const;
  // Records op (its regions replayed too) and maps its results.
  std::vector<Tensor> op(const Op& op);
  // Maps r's arguments to args, replays its ops, and returns its mapped results.
  std::vector<Tensor> inline_region(const Region& r, std::span<const Tensor> args);
  // A copy of r for an op recorded by b.
  Region clone(const Region& r);
};

// "jvp: op 'x' (operands f32[2], i64[]) has no JVP rule" as NotDifferentiableError.
[[noreturn]] void refuse(std::string_view mode, const Function& f, const Op& op, std::string_view why);

}  // namespace tlaloc::ad
