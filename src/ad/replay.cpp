#include <fmt/format.h>

#include "ad/engine.hpp"

namespace tlaloc::ad {

const Tensor& Replay::at(ValueId v) const {
  auto it = primal.find(v);
  if (it == primal.end()) throw Error(fmt::format("AD: value %{} of @{} was used before it was replayed", v, f.name));
  return it->second;
}

std::vector<Tensor> Replay::operands(const Op& op) const {
  std::vector<Tensor> in;
  in.reserve(op.operands.size());
  for (ValueId v : op.operands) in.push_back(at(v));
  return in;
}

Region Replay::clone(const Region& r) {
  std::vector<TensorType> types;
  for (ValueId v : r.args) types.push_back(f.type(v));
  return b.region(types, [&](std::span<const Tensor> args) { return inline_region(r, args); });
}

std::vector<Tensor> Replay::op(const Op& op) {
  std::vector<Region> regions;
  for (const Region& r : op.regions) regions.push_back(clone(r));
  std::vector<TensorType> types;
  for (ValueId v : op.results) types.push_back(f.type(v));
  const ir::Location saved = b.loc;
  b.loc = op.loc;
  std::vector<Tensor> out = b.record(*op.def, operands(op), op.attrs, std::move(types), std::move(regions));
  b.loc = saved;
  for (std::size_t i = 0; i < out.size(); ++i) primal[op.results[i]] = out[i];
  return out;
}

std::vector<Tensor> Replay::inline_region(const Region& r, std::span<const Tensor> args) {
  for (std::size_t i = 0; i < r.args.size(); ++i) primal[r.args[i]] = args[i];
  for (const Op& o : r.ops) op(o);
  std::vector<Tensor> res;
  for (ValueId v : r.results) res.push_back(at(v));
  return res;
}

Traced trace(std::string name, std::span<const TensorType> types, const FlatFn& fn) {
  Traced t;
  t.f.name = std::move(name);
  t.explicit_params = types.size();
  ir::Builder b(t.f);
  std::vector<Tensor> args;
  for (const TensorType& ty : types) args.push_back(b.param(ty));
  const std::vector<Tensor> res = fn(args);
  b.finish(res);
  t.captures = b.captures();
  return t;
}

std::vector<Tensor> record_call(const Function& f, std::span<const Tensor> args) {
  if (args.size() != f.body.args.size())
    throw ValueError(fmt::format("@{} takes {} arguments, got {}", f.name, f.body.args.size(), args.size()));
  ir::Builder* owner = ir::owner_of(args);
  if (owner == nullptr)
    throw Error(fmt::format("AD: @{} was to be recorded into a trace, but none of its arguments is symbolic", f.name));
  Replay r(f, *owner);
  return r.inline_region(f.body, args);
}

void refuse(std::string_view mode, const Function& f, const Op& op, std::string_view why) {
  std::vector<std::string> types;
  for (ValueId v : op.operands) types.push_back(ir::type_string(f.type(v)));
  std::string where;
  if (op.loc.line > 0) where = fmt::format(" at {}:{}", op.loc.line, op.loc.col);
  throw NotDifferentiableError(fmt::format("tl::{}: op '{}' (operands {}){} in @{}: {}", mode, op.name(),
                                           fmt::join(types, ", "), where, f.name, why));
}

}  // namespace tlaloc::ad
