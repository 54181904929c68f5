// The engine's reverse sweep at build time (engine_sweep.hpp). The body is lowered
// to IR of unknown types (engine_lowering.hpp), the engine's VjpPass replays it and
// runs one op's rule at a time, in the order the program's blocks give; each
// cotangent it sums is written as an assignment to d_<value>, and every other op of
// the sweep inline where it is read (or as a temporary, where it is read twice). The
// forward pass stays the tool's (emit_forward.cpp), which names the values the sweep
// reads.
#include "engine_sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "ad/engine.hpp"
#include "ad/modes.hpp"
#include "core/tensor_impl.hpp"
#include "engine_printer.hpp"
#include "ir/op.hpp"

namespace tlaloc_grad {

Sweep SweepPrinter::print(const std::string& seed, const Tensor& seed_value) {
  const std::string d_result = "d_" + p_.values[std::size_t(p_.result)].name;
  const bool referring = std::any_of(low_.aliases.begin(), low_.aliases.end(),
                                     [&](const Lowering::Alias& a) { return target_of(a.out) == d_result; });
  if (!referring) add(code::Stmt::declare("tl::Tensor", d_result, Expr::text(seed)));
  for (const std::string& list : low_.lists)
    line("std::vector<tl::Tensor> d_" + list + "(" + list + ".size());");
  open_scope(nullptr);
  declare_aliases(nullptr);
  if (referring) add(code::Stmt::assign(d_result, Expr::text(seed)));
  declared_.insert(d_result);
  holds_[d_result] = b_.value_of(seed_value);
  block(p_.body);
  // The differentiated parameters' cotangents: the elements of a list in the list's
  // (the caller gives zeros to those without one).
  for (ir::ValueId fv : low_.wrt_elements) {
    const auto it = pass_.ct.find(fv);
    if (it == pass_.ct.end()) continue;
    const Expr e = rec_.write(b_.value_of(it->second));
    if (e.str() != low_.target.at(fv)) add(code::Stmt::assign(low_.target.at(fv), e));
  }
  close_scope();
  // A differentiated parameter's cotangent, zeros where it has none.
  for (std::size_t w : p_.wrt) {
    const auto fv = low_.param_value.find(w);
    if (fv == low_.param_value.end()) {
      out_.cotangents.emplace_back();
      continue;
    }
    const auto ct = pass_.ct.find(fv->second);
    out_.cotangents.push_back(or_zeros(ct == pass_.ct.end() ? Tensor() : ct->second, fv->second).str());
  }
  out_.body = code_.take();
  return std::move(out_);
}

void SweepPrinter::block(const Block& b) {
  for (auto it = b.rbegin(); it != b.rend(); ++it) {
    if (it->kind == Node::Kind::branch) {
      if (it->structured.empty())
        branch(*it);
      else
        cond(*it);
      continue;
    }
    if (it->kind == Node::Kind::loop) {
      if (it->structured.empty())
        loop(*it);
      else
        structured_loop(*it);
      continue;
    }
    const auto ops = low_.ops_of.find(&*it);
    if (ops == low_.ops_of.end()) continue;
    for (std::size_t k = ops->second.second; k > ops->second.first; --k)
      step(low_.function().body.ops[k - 1]);
  }
}

void SweepPrinter::step(const ir::Op& op) {
  if (low_.passing.count(op.results.at(0)) != 0) return pass_on(op, *alias(op.results[0], true));
  guarded(op);
}

void SweepPrinter::guarded(const ir::Op& op) {
  const auto it = pass_.ct.find(op.results.at(0));
  if (it == pass_.ct.end() || maybe_.count(b_.value_of(it->second)) == 0) return run(op);
  State before = save();
  code_.open_if(Expr::member(rec_.write(b_.value_of(it->second)), ".defined()"));
  run(op);
  code_.close();
  before.ct.erase(op.results[0]);  // taken by the rule on either path
  join(save(), before);
}

void SweepPrinter::pass_on(const ir::Op& op, const Lowering::Alias& a) {
  const auto it = pass_.ct.find(op.results[0]);
  if (it == pass_.ct.end()) return;
  const State before = save();
  pass_.ct.erase(op.results[0]);
  variable(a.side, true);
  const State same = save();
  restore(before);
  code_.open_if(Expr::prefix("!", Expr::text(a.cond)));
  guarded(op);
  code_.close();
  join(same, save());
}

void SweepPrinter::run(const ir::Op& op) {
  const std::size_t ops = g_.body.ops.size(), shares = values_.cotangents.size();
  pass_.backward(op);
  write_from(ops, shares);
}

const Lowering::Alias* SweepPrinter::alias(ir::ValueId out, bool taken) const {
  for (const Lowering::Alias& a : low_.aliases)
    if (a.out == out && a.taken == taken) return &a;
  return nullptr;
}

void SweepPrinter::restore(const State& s) {
  pass_.ct = s.ct;
  maybe_ = s.maybe;
  holds_ = s.holds;
  for (const auto& [d, gv] : holds_) rec_.name(gv, d);
}

void SweepPrinter::join(const State& a, const State& b) {
  std::set<ir::ValueId> values;
  for (const auto& [v, t] : a.ct) values.insert(v);
  for (const auto& [v, t] : b.ct) values.insert(v);
  restore(a);
  for (ir::ValueId v : values) {
    const auto x = a.ct.find(v), y = b.ct.find(v);
    const bool in_a = x != a.ct.end(), in_b = y != b.ct.end();
    if (in_a && in_b && x->second.is_same(y->second)) continue;
    const std::string d = target_of(v);
    const Tensor t = named(d, v);
    const ir::ValueId gv = b_.value_of(t);
    pass_.ct[v] = t;
    holds_[d] = gv;
    declare(v);
    const bool sure = in_a && in_b && a.maybe.count(b_.value_of(x->second)) == 0 &&
                      b.maybe.count(b_.value_of(y->second)) == 0;
    if (!sure) maybe_.insert(gv);
  }
}

void SweepPrinter::write_from(std::size_t ops, std::size_t shares) {
  rec_.update();
  std::map<ir::ValueId, std::vector<Share>> sums;
  for (std::size_t k = shares; k < values_.cotangents.size(); ++k) {
    const auto& c = values_.cotangents[k];
    sums[c.value].push_back({c.of, c.by});
  }
  std::map<ir::ValueId, int> uses;
  for (std::size_t k = ops; k < g_.body.ops.size(); ++k) count_uses(g_.body.ops[k], uses);
  const auto made_here = [&](ir::ValueId v) {
    for (std::size_t k = ops; k < g_.body.ops.size(); ++k)
      if (g_.body.ops[k].results.at(0) == v) return true;
    return false;
  };
  // Cotangents that are values from before (a seed, a branch's value passed on).
  for (const auto& [gv, xs] : sums)
    if (!made_here(gv)) assign(gv, xs);
  for (std::size_t k = ops; k < g_.body.ops.size(); ++k) {
    const ir::Op& op = g_.body.ops[k];
    if (op.results.size() != 1) throw NotYet{"an op with several results"};
    const ir::ValueId v = op.results[0];
    if (const auto it = sums.find(v); it != sums.end()) {
      assign(v, it->second);
    } else if (const bool list = op.name() == kCustomCotangents; uses[v] > 1 || list) {
      // A custom rule's cotangents are a statement of their own, as tl::hessian's
      // second lowering reads them.
      const std::string t =
          list ? op.attrs.get<std::string>("name") : fmt::format("t_{}_{}", op.name(), temps_++);
      if (shares < values_.cotangents.size()) note(values_.cotangents[shares].by);
      add(code::Stmt::declare(list ? "const std::vector<tl::Tensor>" : "const tl::Tensor", t,
                              rec_.define(v)));
      rec_.name(v, t);
    }
  }
}

void SweepPrinter::count_uses(const ir::Op& op, std::map<ir::ValueId, int>& uses) const {
  if (op.name() == "weak_scalar") return;
  for (ir::ValueId v : op.operands) {
    ++uses[v];
    const ir::Op* made = rec_.made_by(v);
    if (made != nullptr && made->name() == "weak_scalar" &&
        std::find(op.operands.begin(), op.operands.end(), made->operands[0]) == op.operands.end())
      ++uses[made->operands[0]];
  }
}

std::string SweepPrinter::target_of(ir::ValueId fv) const {
  if (const auto it = apart_.find(fv); it != apart_.end()) return it->second;
  if (const auto it = low_.target.find(fv); it != low_.target.end()) return it->second;
  if (const auto it = low_.inner.find(fv); it != low_.inner.end()) return "d_" + it->second;
  const auto& args = low_.function().body.args;
  for (std::size_t i = 0; i < args.size(); ++i)
    if (args[i] == fv) return "d_" + low_.names[i].str();
  return "d_" + p_.values[std::size_t(low_.program_value.at(fv))].name;
}

void SweepPrinter::declare(ir::ValueId v) {
  const std::string d = target_of(v);
  if (d.find('[') != std::string::npos || !declared_.insert(d).second) return;
  Scope* in = &scopes_.front();
  for (Scope& s : scopes_)
    if (s.loop != nullptr && low_.loops.at(s.loop).own.count(v) != 0) in = &s;
  in->declarations.push_back(code::Stmt::declare("tl::Tensor", d));
}

void SweepPrinter::open_scope(const Node* loop) {
  scopes_.push_back({loop, code_.depth(), code_.current().size(), {}});
}

void SweepPrinter::close_scope() {
  const Scope& s = scopes_.back();
  code::Block& in = code_.at(s.level);
  in.insert(in.begin() + std::ptrdiff_t(s.at), s.declarations.begin(), s.declarations.end());
  scopes_.pop_back();
}

void SweepPrinter::declare_aliases(const Block* scope) {
  std::set<ir::ValueId> outs, done;
  for (const Lowering::Alias& a : low_.aliases) outs.insert(a.out);
  for (const Lowering::Alias& a : low_.aliases)
    if (a.scope == scope && outs.count(a.side) == 0) declare(a.side);
  for (const Lowering::Alias& a : low_.aliases) {
    if (a.scope != scope || !done.insert(a.out).second) continue;
    const std::string d = target_of(a.out);
    declared_.insert(d);
    const Lowering::Alias* then = alias(a.out, true);
    const Lowering::Alias* orelse = alias(a.out, false);
    if (then == nullptr || orelse == nullptr) add(code::Stmt::declare("tl::Tensor", d + "_apart"));
    const auto side = [&](const Lowering::Alias* x) {
      return x != nullptr ? target_of(x->side) : d + "_apart";
    };
    // One value on both paths: d is its cotangent, whichever ran. A loop's carried
    // value may be one of several values, each tested in turn (a reference to a
    // reference each: `d_else1`, read so by tl::hessian's second lowering too).
    std::string refers = side(orelse);
    int others = 0;
    for (auto it = low_.aliases.rbegin(); it != low_.aliases.rend(); ++it)
      if (it->out == a.out && it->taken && &*it != then) {
        const std::string other = d + "_else" + std::to_string(++others);
        add(code::Stmt::declare(
            "tl::Tensor&", other,
            Expr::conditional(Expr::text(it->cond), Expr::name(side(&*it)), Expr::name(refers))));
        refers = other;
      }
    if (then != nullptr && orelse != nullptr && then->side == orelse->side)
      add(code::Stmt::declare("tl::Tensor&", d, Expr::name(side(then))));
    else
      add(code::Stmt::declare(
          "tl::Tensor&", d,
          Expr::conditional(Expr::text(a.cond), Expr::name(side(then)), Expr::name(refers))));
    for (const Lowering::Alias& x : low_.aliases)
      if (x.out == a.out) {
        aliased_[d].insert(target_of(x.side));
        aliased_[target_of(x.side)].insert(d);
      }
  }
}

void SweepPrinter::assign(ir::ValueId gv, const std::vector<Share>& xs) {
  for (const auto& [of, by] : xs) {
    const std::string d = target_of(of);
    Expr value = rec_.named(gv) ? rec_.write(gv) : rec_.define(gv);
    if (value.str() == d) continue;
    const ir::Op* made = rec_.made_by(gv);
    // Made by `+`: the engine's sum of two shares.
    const bool added_up = made != nullptr && made->def->public_call().symbol == "+";
    const auto held = holds_.find(d);
    const bool sum = added_up && held != holds_.end() && made->operands[0] == held->second && !rec_.named(gv);
    // Where d may be undefined at run time (one path left it without a value, or it
    // may refer to another's variable, or be an element another read gives shares
    // too, shares this sweep does not see), the share is added only where it has a
    // value.
    const bool shared = may_hold_others(of);
    // A sum whose first operand may be undefined (a carried cotangent, read where it
    // is first summed).
    const bool maybe_first = added_up && !rec_.named(gv) && maybe_.count(made->operands[0]) != 0;
    if (sum && (maybe_first || shared))
      value = maybe_sum(d, made->operands[1]);
    else if (shared && maybe_first)
      throw std::logic_error("a sum of shares that may be undefined, for a variable shared");
    else if (shared)
      value = maybe_sum(d, gv);
    else if (maybe_first)
      value = maybe_sum(rec_.write(made->operands[0]).str(), made->operands[1]);
    else if (sum)  // d holds the sum's first operand, whatever name that was given first
      value = rec_.sum(Expr::text(d), made->operands[1]);
    // A share that may itself be undefined (a cotangent passed on from after a
    // branch or a loop) is added only where it has a value.
    const bool adds = added_up && !rec_.named(gv);
    const ir::ValueId added = adds ? made->operands[1] : gv;
    const bool guard = maybe_.count(added) != 0 && (adds || shared);
    if (guard && !(sum && maybe_.count(made->operands[0]) == 0)) maybe_.insert(gv);
    if (held != holds_.end() && held->second != gv) rec_.retire(held->second);
    note(by);
    declare(of);
    code::Stmt assignment = code::Stmt::assign(d, std::move(value));
    add(guard ? code::Stmt::guarded(Expr::member(rec_.write(added), ".defined()"), std::move(assignment))
              : std::move(assignment));
    holds_[d] = gv;
    if (!rec_.named(gv)) rec_.name(gv, d);
  }
}

void SweepPrinter::note(const ir::Op* by) {
  if (by != nullptr && by != commented_) {
    const Node& n = *low_.node_of.at(by->results.at(0));
    add(code::Stmt::comment((n.fn == "custom" ? std::string("the custom rule's backward half") : n.fn) +
                            ", " + forward_.at(n.loc)));
  }
  commented_ = by;
}

bool SweepPrinter::may_hold_others(ir::ValueId v) const {
  if (low_.in_place.count(v) != 0) return true;
  const std::string d = target_of(v);
  std::set<std::string> seen{d};
  std::vector<std::string> todo{d};
  while (!todo.empty()) {
    const auto it = aliased_.find(todo.back());
    todo.pop_back();
    if (it == aliased_.end()) continue;
    for (const std::string& x : it->second)
      if (seen.insert(x).second) {
        if (holds_.count(x) != 0) return true;
        todo.push_back(x);
      }
  }
  return false;
}

Expr SweepPrinter::maybe_sum(const std::string& d, ir::ValueId share) {
  return Expr::conditional(Expr::member(Expr::text(d), ".defined()"), rec_.sum(Expr::text(d), share),
                           rec_.write(share));
}

namespace {

// A result that depends on nothing differentiated: every cotangent is zeros (the
// caller gives a list's elements theirs), as the engine gives a parameter nothing reads.
Sweep constant_sweep(const Program& p) {
  Sweep s;
  for (std::size_t w : p.wrt) {
    const Param& prm = p.params[w];
    if (prm.list) {
      s.body.push_back(
          code::Stmt::line("std::vector<tl::Tensor> d_" + prm.name + "(" + prm.name + ".size());"));
      s.cotangents.emplace_back();
    } else {
      s.cotangents.push_back("tl::zeros_like(" + p.values[std::size_t(prm.value)].name + ")");
    }
  }
  return s;
}

}  // namespace

Sweep engine_sweep(const Program& p, const std::string& seed, const ForwardPass& forward) {
  if (p.result < 0 || !p.values[std::size_t(p.result)].active) return constant_sweep(p);
  Lowering low(p);
  try {
    low.lower();
    const ir::Function& f = low.function();
    ir::Function g;
    ir::Builder b(g);
    tl::ad::VjpPass pass(f, b);
    tl::ad::VjpValues values;
    pass.values = &values;
    // g's parameters: f's, then the seed.
    std::map<ir::ValueId, Expr> names;
    std::map<ir::ValueId, Kind> kinds;
    for (std::size_t i = 0; i < f.body.args.size(); ++i) {
      const Tensor t = b.param(tl::detail::unknown_type());
      pass.rp.primal[f.body.args[i]] = t;
      if (low.wrt()[i]) pass.active.insert(f.body.args[i]);
      if (low.scalars.count(f.body.args[i]) != 0) continue;
      names[b.value_of(t)] = low.names[i];
      kinds[b.value_of(t)] = low.kinds[i];
    }
    for (ir::ValueId v : low.joined) pass.active.insert(v);
    pass.forward(f.body);
    std::map<ir::ValueId, ir::ValueId> primal;  // f's values replayed in g
    for (const auto& [v, t] : pass.rp.primal) primal[v] = b.value_of(t);
    std::map<ir::ValueId, std::pair<std::string, ir::ValueId>> scalars;
    for (const auto& [v, s] : low.scalars) scalars[primal.at(v)] = {s.first, primal.at(s.second)};
    for (const auto& [fv, pv] : low.program_value)
      names[primal.at(fv)] = Expr::text(p.values[std::size_t(pv)].name);
    const Tensor seed_value = b.param(tl::detail::unknown_type());
    const ir::ValueId result = f.body.results.at(0);
    names[b.value_of(seed_value)] = Expr::text("d_" + p.values[std::size_t(p.result)].name);
    // The seed has the result's type.
    Recording rec(g, names, kinds, scalars, "", {{b.value_of(seed_value), primal.at(result)}});
    if (pass.is_active(result)) pass.add_ct(result, seed_value);
    values.cotangents.clear();
    return SweepPrinter(p, low, g, b, pass, values, primal, rec, forward).print(seed, seed_value);
  } catch (const NotYet& e) {
    return {{}, {}, e.what, e.where};
  } catch (const tl::detail::UnknownTypeError&) {
    return {{}, {}, "a rule that reads a type known only at run time"};
  } catch (const tl::NotDifferentiableError& e) {
    return {{}, {}, e.what(), {}, true};
  } catch (const std::logic_error& e) {
    return {{}, {}, std::string("a recording it cannot write back: ") + e.what()};
  }
}

}  // namespace tlaloc_grad
