// Lowering to StableHLO-level ops: each op that has no StableHLO spelling, or whose
// operands StableHLO would not accept as they are, is rewritten by tracing its
// decomposition (OpDef::lowering) or, for elementwise ops, by converting and
// broadcasting its operands. Rounds repeat until every op is legal.
#include <fmt/format.h>

#include "ir/builder.hpp"
#include "stablehlo/stablehlo.hpp"

namespace tlaloc::stablehlo {
namespace {

using detail::TensorType;
using ir::Function;
using ir::Op;
using ir::Region;
using ir::ValueId;

constexpr int kMaxRounds = 16;

const detail::OpDef& registry_op(std::string_view name) {
  const detail::OpDef* op = detail::find_op(name);
  if (op == nullptr) throw Error(fmt::format("the op registry has no '{}'", name));
  return *op;
}

// Leading operands that keep their own dtype: select's i1 predicate.
std::size_t predicates(const Op& op) { return op.def->written()->format == "select" ? 1 : 0; }

// The dtype an elementwise op's other operands must have in StableHLO.
DType operand_dtype(const Function& f, const Op& op) {
  const DType out = f.type(op.results.at(0)).dtype;
  // Comparisons give i1; abs, real and imag of complex values their parts' type, and
  // complex a complex type of its parts: the operands keep their own common type.
  const bool kind_changes = is_complex(out) != is_complex(f.type(op.operands.at(predicates(op))).dtype);
  if (out != DType::boolean && !kind_changes) return out;
  DType t = f.type(op.operands.at(predicates(op))).dtype;
  for (std::size_t i = predicates(op); i < op.operands.size(); ++i)
    t = promote_types(t, f.type(op.operands[i]).dtype);
  return t;
}

// The spelling an op keeps in lowered text: StableHLO's, or chlo's where the op has
// no decomposition (XLA's compilers legalize chlo, as for JAX's programs).
const detail::StableHloSpelling* kept_spelling(const Op& op) {
  if (op.def->stablehlo() != nullptr) return op.def->stablehlo();
  if (op.def->lowering() || op.def->region_lowering()) return nullptr;
  return op.def->chlo();
}

bool legal(const Function& f, const Op& op) {
  const detail::StableHloSpelling* s = kept_spelling(op);
  if (s == nullptr) return false;
  if (s->floating_only)  // the spec's float ops take complex values too
    for (ValueId v : op.operands)
      if (!is_inexact(f.type(v).dtype)) return false;
  if (!op.def->is_elementwise()) return true;
  const TensorType& out = f.type(op.results.at(0));
  const DType want = operand_dtype(f, op);
  for (std::size_t i = 0; i < op.operands.size(); ++i) {
    const TensorType& t = f.type(op.operands[i]);
    if (t.shape != out.shape || (i >= predicates(op) && t.dtype != want)) return false;
  }
  return true;
}

class Rewriter {
 public:
  explicit Rewriter(const Function& f) : f_(f), map_(f.num_values()) {
    g_.name = f.name;
    g_.is_public = f.is_public;
  }

  Function run(bool& changed) {
    {
      ir::Builder b(g_);
      b_ = &b;
      for (ValueId v : f_.body.args) map_[std::size_t(v)] = b.param(f_.type(v));
      for (const Op& op : f_.body.ops) this->op(op);
      b.finish(mapped(f_.body.results));
    }
    changed = changed_;
    return std::move(g_);
  }

 private:
  std::vector<Tensor> mapped(const std::vector<ValueId>& vs) {
    std::vector<Tensor> out;
    for (ValueId v : vs) out.push_back(map_[std::size_t(v)]);
    return out;
  }

  Region region(const Region& r) {
    std::vector<TensorType> types;
    for (ValueId v : r.args) types.push_back(f_.type(v));
    return b_->region(types, [&](std::span<const Tensor> args) {
      for (std::size_t i = 0; i < args.size(); ++i) map_[std::size_t(r.args[i])] = args[i];
      for (const Op& op : r.ops) this->op(op);
      return mapped(r.results);
    });
  }

  void op(const Op& op) {
    b_->loc = op.loc;
    std::vector<Tensor> in = mapped(op.operands);
    std::vector<TensorType> out_types;
    for (ValueId v : op.results) out_types.push_back(f_.type(v));
    std::vector<Tensor> out;
    if (legal(f_, op)) {
      std::vector<Region> regions;
      for (const Region& r : op.regions) regions.push_back(region(r));
      out = b_->record(*op.def, in, op.attrs, out_types, std::move(regions));
    } else if (op.def->lowering()) {
      changed_ = true;
      out = op.def->lowering()(in, op.attrs);
    } else if (op.def->region_lowering()) {
      changed_ = true;
      out = op.def->region_lowering()(in, op.attrs, [&](std::size_t k, std::span<const Tensor> args) {
        const Region& r = op.regions.at(k);
        for (std::size_t i = 0; i < args.size(); ++i) map_[std::size_t(r.args[i])] = args[i];
        for (const Op& inner : r.ops) this->op(inner);
        return mapped(r.results);
      });
    } else if (op.def->is_elementwise() && kept_spelling(op) != nullptr) {
      changed_ = true;
      out = b_->record(*op.def, legalized(op, in), op.attrs, out_types);
    } else {
      const std::string where = op.loc.line > 0 ? fmt::format(" (line {}:{})", op.loc.line, op.loc.col) : "";
      throw Error(fmt::format("tl::{}: has no StableHLO lowering{}", op.name(), where));
    }
    if (out.size() != op.results.size())
      throw Error(fmt::format("tl::{}: its lowering gives {} values for {} results", op.name(), out.size(),
                              op.results.size()));
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (detail::type_of(out[i]) != out_types[i])
        throw Error(fmt::format("tl::{}: its lowering gives result {} of type {} where {} was expected",
                                op.name(), i, ir::type_string(detail::type_of(out[i])),
                                ir::type_string(out_types[i])));
      map_[std::size_t(op.results[i])] = out[i];
    }
  }

  // Converts and broadcasts the operands to what the StableHLO op accepts.
  std::vector<Tensor> legalized(const Op& op, std::vector<Tensor> in) {
    const Shape& shape = f_.type(op.results[0]).shape;
    const DType want = operand_dtype(f_, op);
    for (std::size_t k = 0; k < in.size(); ++k) {
      Tensor& t = in[k];
      if (k >= predicates(op) && t.dtype() != want)
        t = detail::call1(registry_op("convert"), {t}, {{"dtype", want}});
      if (t.shape() != shape) {
        std::vector<std::int64_t> dims;
        for (std::size_t i = 0; i < t.shape().size(); ++i)
          dims.push_back(std::int64_t(shape.size() - t.shape().size() + i));
        t = detail::call1(registry_op("broadcast_in_dim"), {t}, {{"shape", shape}, {"dims", dims}});
      }
    }
    return in;
  }

  const Function& f_;
  Function g_;
  std::vector<Tensor> map_;
  ir::Builder* b_ = nullptr;
  bool changed_ = false;
};

Function lower_function(const Function& f) {
  Function cur = f;
  for (int round = 0; round < kMaxRounds; ++round) {
    bool changed = false;
    Function next = Rewriter(cur).run(changed);
    if (!changed) return next;
    cur = std::move(next);
  }
  throw Error(fmt::format("lowering @{} to StableHLO did not finish after {} rounds", f.name, kMaxRounds));
}

// The partitions the ops of `r` make the module an SPMD program on (a shard_map's
// devices), checked against those already found.
void find_partitions(const Region& r, std::int64_t& partitions) {
  for (const Op& op : r.ops) {
    for (const Region& inner : op.regions) find_partitions(inner, partitions);
    const std::int64_t p = op.def->partitions_when_lowered(op.attrs);
    if (p == 1) continue;
    if (partitions != 1 && partitions != p)
      throw Error(
          fmt::format("tl::{}: runs on {} devices in a program that runs on {}: an SPMD program has one "
                      "number of partitions",
                      op.name(), p, partitions));
    partitions = p;
  }
}

}  // namespace

ir::Module lower(const ir::Module& m) {
  ir::Module out;
  out.num_replicas = m.num_replicas;
  out.num_partitions = m.num_partitions;
  for (const Function& f : m.functions) find_partitions(f.body, out.num_partitions);
  for (const Function& f : m.functions) out.functions.push_back(lower_function(f));
  ir::verify(out);
  return out;
}

}  // namespace tlaloc::stablehlo
