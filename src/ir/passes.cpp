#include "ir/passes.hpp"

#include <fmt/format.h>

#include <cstring>
#include <functional>
#include <optional>
#include <unordered_map>

#include "core/tensor_impl.hpp"

namespace tlaloc::ir {
namespace {

constexpr std::int64_t kFoldLimit = 1 << 16;  // elements a folded constant may have

// Walks every region, substituting operands as ops are replaced. `visit` returns
// the values that replace the op's results, or nothing to keep the op.
class Rewrite {
 public:
  using Visit = std::function<std::optional<std::vector<ValueId>>(Function&, Op&)>;
  Rewrite(Function& f, Visit visit) : f_(f), visit_(std::move(visit)), subst_(f.num_values()) {
    for (std::size_t i = 0; i < subst_.size(); ++i) subst_[i] = ValueId(i);
  }
  bool run() {
    region(f_.body);
    return changed_;
  }
  void region(Region& r) {
    std::vector<Op> kept;
    for (Op& op : r.ops) {
      for (ValueId& v : op.operands) v = subst_[std::size_t(v)];
      for (Region& inner : op.regions) region(inner);
      if (auto repl = visit_(f_, op)) {
        for (std::size_t i = 0; i < repl->size(); ++i) subst_.at(std::size_t(op.results[i])) = (*repl)[i];
        changed_ = true;
        continue;
      }
      kept.push_back(std::move(op));
    }
    r.ops = std::move(kept);
    for (ValueId& v : r.results) v = subst_[std::size_t(v)];
  }

 private:
  Function& f_;
  Visit visit_;
  std::vector<ValueId> subst_;
  bool changed_ = false;
};

bool same_tensor(const Tensor& a, const Tensor& b) {
  if (a.impl_ptr() == b.impl_ptr()) return true;
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  const std::size_t n = std::size_t(a.numel()) * itemsize(a.dtype());
  return n <= (std::size_t(1) << 20) && std::memcmp(a.raw_data(), b.raw_data(), n) == 0;
}

bool same_attrs(const Attrs& a, const Attrs& b) {
  if (a.items().size() != b.items().size()) return false;
  for (std::size_t i = 0; i < a.items().size(); ++i) {
    const auto& [ka, va] = a.items()[i];
    const auto& [kb, vb] = b.items()[i];
    if (ka != kb || va.index() != vb.index()) return false;
    const detail::AttrValue& other = vb;  // a structured binding cannot be captured in C++20
    const bool same = std::visit(
        [&other](const auto& x) {
          using X = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<X, Tensor>)
            return same_tensor(x, std::get<Tensor>(other));
          else
            return x == std::get<X>(other);
        },
        va);
    if (!same) return false;
  }
  return true;
}

bool pure(const Op& op) { return !op.def->has_side_effects() && op.regions.empty(); }

bool all_equal_to(const Tensor& t, double v, bool negative_zero = false) {
  if (t.numel() > 4096) return false;
  for (double x : t.to_vector<double>())
    if (x != v || (negative_zero && !std::signbit(x)) ||
        (!negative_zero && v == 0 && std::signbit(x) && is_floating(t.dtype())))
      return false;
  return true;
}

bool has_effects_inside(const Op& op) {
  for (const Region& r : op.regions)
    for (const Op& inner : r.ops)
      if (inner.def->has_side_effects() || has_effects_inside(inner)) return true;
  return false;
}

bool live_op(const Op& op, const std::vector<bool>& used) {
  if (op.def->has_side_effects()) return true;
  for (ValueId v : op.results)
    if (used[std::size_t(v)]) return true;
  return false;
}

// Marks what a region needs, backwards; drops dead ops. True when something went.
bool live_region(Region& r, std::vector<bool>& used) {
  for (ValueId v : r.results) used[std::size_t(v)] = true;
  bool changed = false;
  std::vector<Op> kept;
  for (auto it = r.ops.rbegin(); it != r.ops.rend(); ++it) {
    if (!live_op(*it, used) && !has_effects_inside(*it)) {
      changed = true;
      continue;
    }
    for (ValueId v : it->operands) used[std::size_t(v)] = true;
    for (Region& inner : it->regions) changed = live_region(inner, used) || changed;
    kept.push_back(std::move(*it));
  }
  r.ops.assign(std::make_move_iterator(kept.rbegin()), std::make_move_iterator(kept.rend()));
  return changed;
}

}  // namespace

Function dce(const Function& f) {
  Function g = f;
  std::vector<bool> used(g.num_values(), false);
  live_region(g.body, used);
  return g;
}

Function cse(const Function& f) {
  struct Seen {
    const OpDef* def;
    std::vector<ValueId> operands;
    Attrs attrs;
    std::vector<ValueId> results;
  };
  Function g = f;
  std::vector<Seen> table;  // ops kept so far and in scope (a region sees its parents')
  std::vector<std::size_t> marks;
  std::vector<ValueId> subst(g.num_values());
  for (std::size_t i = 0; i < subst.size(); ++i) subst[i] = ValueId(i);
  auto match = [&](const Op& op) -> const Seen* {
    for (const Seen& s : table) {
      if (s.def != op.def || s.operands != op.operands || s.results.size() != op.results.size() ||
          !same_attrs(s.attrs, op.attrs))
        continue;
      bool same_types = true;
      for (std::size_t i = 0; i < op.results.size(); ++i)
        same_types = same_types && g.type(s.results[i]) == g.type(op.results[i]);
      if (same_types) return &s;
    }
    return nullptr;
  };
  std::function<void(Region&)> walk = [&](Region& r) {
    const std::size_t mark = table.size();
    std::vector<Op> kept;
    for (Op& op : r.ops) {
      for (ValueId& v : op.operands) v = subst[std::size_t(v)];
      for (Region& inner : op.regions) walk(inner);
      if (pure(op)) {
        if (const Seen* s = match(op)) {
          for (std::size_t i = 0; i < op.results.size(); ++i)
            subst[std::size_t(op.results[i])] = s->results[i];
          continue;
        }
        table.push_back({op.def, op.operands, op.attrs, op.results});
      }
      kept.push_back(std::move(op));
    }
    r.ops = std::move(kept);
    for (ValueId& v : r.results) v = subst[std::size_t(v)];
    table.resize(mark);  // a region's ops are not visible after it
  };
  walk(g.body);
  return g;
}

Function fold_constants(const Function& f) {
  Function g = f;
  std::unordered_map<ValueId, Tensor> known;
  const detail::OpDef* constant = detail::find_op("constant");
  std::function<void(Region&)> walk = [&](Region& r) {
    for (Op& op : r.ops) {
      for (Region& inner : op.regions) walk(inner);
      if (op.def == constant) {
        known[op.results[0]] = op.attrs.get<Tensor>("value");
        continue;
      }
      if (!pure(op) || !op.def->has_kernel() || op.operands.empty()) continue;
      std::vector<Tensor> in;
      for (ValueId v : op.operands) {
        auto it = known.find(v);
        if (it == known.end()) break;
        in.push_back(it->second);
      }
      if (in.size() != op.operands.size()) continue;
      std::vector<TensorType> types;
      bool small = true;
      for (ValueId v : op.results) {
        types.push_back(g.type(v));
        small = small && is_static(types.back()) && detail::numel_of(types.back().shape) <= kFoldLimit;
      }
      if (!small) continue;
      std::vector<Tensor> out;
      try {
        out = op.def->run(in, op.attrs, types);
      } catch (const Error&) {
        continue;  // left for run time, where the error belongs
      }
      for (std::size_t i = 0; i < out.size(); ++i) known[op.results[i]] = out[i];
      // The op becomes a constant (one result) or stays (several).
      if (out.size() == 1) {
        op.def = constant;
        op.operands.clear();
        op.attrs = Attrs{{"value", out[0]}};
      }
    }
  };
  walk(g.body);
  return g;
}

namespace {
struct Def {
  std::string name;
  std::vector<ValueId> operands;
  Tensor value;  // for constants
};
std::optional<std::vector<ValueId>> simplified(Function& fn, const Op& op,
                                               const std::unordered_map<ValueId, Def>& defs);
}  // namespace

Function simplify(const Function& f) {
  Function g = f;
  std::unordered_map<ValueId, Def> defs;  // kept ops, after substitution
  Rewrite rw(g, [&](Function& fn, Op& op) -> std::optional<std::vector<ValueId>> {
    auto repl = simplified(fn, op, defs);
    if (!repl && op.results.size() == 1) {
      Def d{op.name(), op.operands, {}};
      if (op.name() == "constant") d.value = op.attrs.get<Tensor>("value");
      defs[op.results[0]] = std::move(d);
    }
    return repl;
  });
  rw.run();
  return g;
}

namespace {

std::optional<std::vector<ValueId>> simplified(Function& fn, const Op& op,
                                               const std::unordered_map<ValueId, Def>& defs) {
  const std::string& n = op.name();
  if (op.results.size() != 1) return std::nullopt;
  const TensorType& out = fn.type(op.results[0]);
  auto same_type = [&](ValueId v) { return fn.type(v) == out; };
  if ((n == "convert" || n == "broadcast_in_dim" || n == "reshape" || n == "transpose" ||
       n == "optimization_barrier") &&
      op.operands.size() == 1 && same_type(op.operands[0])) {
    if (n == "transpose") {
      const auto& p = op.attrs.get<std::vector<std::int64_t>>("permutation");
      for (std::size_t i = 0; i < p.size(); ++i)
        if (p[i] != std::int64_t(i)) return std::nullopt;
    }
    if (n != "optimization_barrier") return std::vector<ValueId>{op.operands[0]};
  }
  if (n == "neg" && op.operands.size() == 1) {
    auto it = defs.find(op.operands[0]);
    if (it != defs.end() && it->second.name == "neg" && same_type(it->second.operands[0]))
      return std::vector<ValueId>{it->second.operands[0]};
  }
  // x op c, and c op x for the commutative ones.
  for (std::size_t k = 0; k < 2 && op.operands.size() == 2; ++k) {
    if (k == 1 && n != "mul" && n != "add") break;
    const ValueId x = op.operands[k], other = op.operands[1 - k];
    if (!same_type(x)) continue;
    auto it = defs.find(other);
    const Tensor* c = it != defs.end() && it->second.name == "constant" ? &it->second.value : nullptr;
    if (c == nullptr) continue;
    const bool ints = !is_floating(out.dtype);
    // Exact in IEEE arithmetic for every x (x + 0 is not: -0 + 0 = +0).
    if ((n == "sub" && all_equal_to(*c, 0)) || (n == "mul" && all_equal_to(*c, 1)) ||
        (n == "div" && all_equal_to(*c, 1)) ||
        (n == "add" && (ints ? all_equal_to(*c, 0) : all_equal_to(*c, 0, true))))
      return std::vector<ValueId>{x};
  }
  return std::nullopt;
}

}  // namespace

namespace {

// Ops in all regions, and how many are constants: every pass lowers the first or,
// folding, raises the second, so an unchanged pair means a round changed nothing.
std::pair<std::size_t, std::size_t> op_counts(const Region& r) {
  std::pair<std::size_t, std::size_t> n{r.ops.size(), 0};
  for (const Op& op : r.ops) {
    n.second += op.name() == "constant";
    for (const Region& inner : op.regions) {
      const auto [ops, constants] = op_counts(inner);
      n.first += ops;
      n.second += constants;
    }
  }
  return n;
}

}  // namespace

Function optimize(const Function& f) {
  Function g = f;
  for (int round = 0; round < 8; ++round) {
    const auto before = op_counts(g.body);
    g = dce(cse(fold_constants(simplify(g))));
    if (op_counts(g.body) == before) break;
  }
  return g;
}

}  // namespace tlaloc::ir
