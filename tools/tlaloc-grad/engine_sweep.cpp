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
#include <cctype>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "ad/engine.hpp"
#include "ad/modes.hpp"
#include "core/tensor_impl.hpp"
#include "engine_lowering.hpp"
#include "engine_writer.hpp"
#include "ops/op.hpp"

namespace tlaloc_grad {
namespace {

// A variable's name made of d's text: `d_p[p.index("w")]` gives `d_p_p_index_w`.
std::string identifier(const std::string& d) {
  std::string out;
  for (const char c : d) {
    const bool word = std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
    if (word)
      out += c;
    else if (!out.empty() && out.back() != '_')
      out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

// The sweep, driven block by block over the program (tl::ad::VjpPass, one op's rule
// at a time) and written out as it is recorded: each cotangent an assignment in the
// order the engine sums it, values read twice as temporaries, the rest inline. A
// C++ if becomes an if whose paths run their ops' rules; after it, a cotangent one
// path changed is its variable, defined, or (where the other path left it without
// one) defined or not at run time, which what reads it then tests. A C++ loop, which
// tracing unrolls, becomes a reverse loop over its saved iterations.
class Printer {
  // A cotangent of value `of`, given by the rule of op `by`.
  struct Share {
    ir::ValueId of;
    const ir::Op* by;
  };
  // Where variables are declared: the sweep's start, or a reverse loop's body (each
  // iteration's cotangents start undefined), at line `at`.
  struct Scope {
    const Node* loop;
    std::size_t at;
    std::string indent;
    std::vector<std::string> declarations;
  };
  // What a path changes, restored for the other path.
  struct State {
    std::unordered_map<ir::ValueId, Tensor> ct;
    std::set<ir::ValueId> maybe;
    std::map<std::string, ir::ValueId> holds;
  };

 public:
  Printer(const Program& p, Lowering& low, const ir::Function& g, ir::Builder& b, tl::ad::VjpPass& pass,
          const tl::ad::VjpValues& values, const std::map<ir::ValueId, ir::ValueId>& primal, Recording& rec,
          const ForwardPass& forward)
      : p_(p),
        low_(low),
        g_(g),
        b_(b),
        pass_(pass),
        values_(values),
        primal_(primal),
        rec_(rec),
        forward_(forward) {}

  Sweep print(const std::string& seed, const Tensor& seed_value) {
    const std::string d_result = "d_" + p_.values[std::size_t(p_.result)].name;
    const bool referring =
        std::any_of(low_.aliases.begin(), low_.aliases.end(),
                    [&](const Lowering::Alias& a) { return target_of(a.out) == d_result; });
    if (!referring) line("tl::Tensor " + d_result + " = " + seed + ";");
    for (const std::string& list : low_.lists)
      line("std::vector<tl::Tensor> d_" + list + "(" + list + ".size());");
    open_scope(nullptr);
    declare_aliases(nullptr);
    if (referring) line(d_result + " = " + seed + ";");
    declared_.insert(d_result);
    holds_[d_result] = b_.value_of(seed_value);
    block(p_.body);
    // The differentiated parameters' cotangents: the elements of a list in the list's
    // (the caller gives zeros to those without one).
    for (ir::ValueId fv : low_.wrt_elements) {
      const auto it = pass_.ct.find(fv);
      if (it == pass_.ct.end()) continue;
      const std::string text = rec_.write(b_.value_of(it->second)).text;
      if (text != low_.target.at(fv)) line(low_.target.at(fv) + " = " + text + ";");
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
      out_.cotangents.push_back(or_zeros(ct == pass_.ct.end() ? Tensor() : ct->second, fv->second));
    }
    return std::move(out_);
  }

 private:
  void line(const std::string& l) { out_.lines.push_back(std::string(std::size_t(2 * depth_), ' ') + l); }

  void block(const Block& b) {
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

  // One op's rule; where its result's cotangent may be undefined at run time, only
  // where it is not.
  void step(const ir::Op& op) {
    if (low_.passing.count(op.results.at(0)) != 0) return pass_on(op, *alias(op.results[0], true));
    guarded(op);
  }
  void guarded(const ir::Op& op) {
    const auto it = pass_.ct.find(op.results.at(0));
    if (it == pass_.ct.end() || maybe_.count(b_.value_of(it->second)) == 0) return run(op);
    State before = save();
    line("if (" + rec_.write(b_.value_of(it->second)).text + ".defined()) {");
    ++depth_;
    run(op);
    --depth_;
    line("}");
    before.ct.erase(op.results[0]);  // taken by the rule on either path
    join(save(), before);
  }

  // y = f(x) of a function that may return x: where it did, y's shares are x's
  // already; elsewhere its rule runs.
  void pass_on(const ir::Op& op, const Lowering::Alias& a) {
    const auto it = pass_.ct.find(op.results[0]);
    if (it == pass_.ct.end()) return;
    const State before = save();
    pass_.ct.erase(op.results[0]);
    refer(a.side);
    const State same = save();
    restore(before);
    line("if (!" + a.cond + ") {");
    ++depth_;
    guarded(op);
    --depth_;
    line("}");
    join(same, save());
  }

  void run(const ir::Op& op) {
    const std::size_t ops = g_.body.ops.size(), shares = values_.cotangents.size();
    pass_.backward(op);
    write_from(ops, shares);
  }

  void branch(const Node& s) {
    std::vector<Tensor> outs;
    for (const Phi& ph : s.phis)
      outs.push_back(low_.lowered(ph.out) ? pass_.take_ct(low_.value(ph.out)) : Tensor());
    const State before = save();
    const std::size_t head = out_.lines.size();
    line("if (" + cond_name(s.id) + ") {");
    path(s.body, s.phis, outs, true);
    const State then = save();
    restore(before);
    const std::size_t middle = out_.lines.size();
    line("} else {");
    path(s.orelse, s.phis, outs, false);
    const bool then_empty = middle == head + 1, else_empty = out_.lines.size() == middle + 1;
    if (else_empty) out_.lines.pop_back();
    if (then_empty && else_empty) {
      out_.lines.pop_back();
    } else if (then_empty) {
      // Only the else path has work: `if (!cond) { ... }`.
      out_.lines.erase(out_.lines.begin() + std::ptrdiff_t(middle));
      out_.lines[head] = std::string(std::size_t(2 * depth_), ' ') + "if (!" + cond_name(s.id) + ") {";
      line("}");
    } else {
      line("}");
    }
    join(then, save());
  }

  void path(const Block& b, const std::vector<Phi>& phis, const std::vector<Tensor>& outs, bool first) {
    ++depth_;
    for (const std::string& l : forward_.scalars(b)) line(l);
    const std::size_t ops = g_.body.ops.size(), shares = values_.cotangents.size();
    // A value after the branch is, on this path, the value it joins: its cotangent
    // is that value's, read as a value of its type; where it refers to that value's
    // variable, that variable holds its shares already, defined or not.
    for (std::size_t k = 0; k < phis.size(); ++k) {
      if (!low_.lowered(phis[k].out) || !low_.lowered(first ? phis[k].first : phis[k].second)) continue;
      const ir::ValueId side = low_.value(first ? phis[k].first : phis[k].second);
      if (alias(low_.value(phis[k].out), first) != nullptr) {
        refer(side);
        continue;
      }
      if (!outs[k].defined() || !pass_.is_active(side)) continue;
      const Tensor t = b_.param(tl::detail::unknown_type());
      const std::string out = rec_.write(b_.value_of(outs[k])).text, d = target_of(side);
      // The first share of a value of the path: its variable takes it, and the rules
      // read it there.
      const bool first_share = pass_.ct.count(side) == 0 && may_hold_others(d) == false;
      if (first_share) {
        declare(side);
        line(d + " = " + out + ";");
        holds_[d] = b_.value_of(t);
      }
      rec_.name(b_.value_of(t), first_share ? d : out);
      rec_.alike(b_.value_of(t), primal_.at(side));
      if (maybe_.count(b_.value_of(outs[k])) != 0) maybe_.insert(b_.value_of(t));
      pass_.add_ct(side, t);
    }
    write_from(ops, shares);
    block(b);
    --depth_;
  }

  // A C++ loop: a reverse loop over its iterations, last first. At the head of each,
  // the cotangents the iterations pass on are their variables, defined or not: each
  // carried value's (the shares of the value the next iteration started with, or of
  // the loop's result) and those of the values from outside that the body reads, to
  // which every iteration adds, as the unrolled trace does. In the first iteration a
  // carried value is its initial value, and without iterations the loop's result is:
  // their variables refer to its (Lowering::loop).
  void loop(const Node& s) {
    const Lowering::Loop& l = low_.loops.at(&s);
    std::vector<const Phi*> carried;
    std::vector<ir::ValueId> outer;
    for (const Phi& ph : s.phis)
      if (pass_.is_active(low_.value(ph.out))) carried.push_back(&ph);
    if (carried.empty()) return;
    for (ir::ValueId v : l.free)
      if (pass_.is_active(v)) outer.push_back(v);
    for (const Phi* ph : carried) {
      if (!low_.lowered(ph->first)) continue;  // declared without a value before the loop
      if (const ir::ValueId first = low_.value(ph->first);
          pass_.is_active(first) && std::find(outer.begin(), outer.end(), first) == outer.end())
        outer.push_back(first);
    }
    std::set<ir::ValueId> sure;  // defined before the loop, so at every iteration's head
    for (ir::ValueId v : outer) {
      settle(v);
      if (const auto it = pass_.ct.find(v);
          it != pass_.ct.end() && maybe_.count(b_.value_of(it->second)) == 0)
        sure.insert(v);
    }
    for (const Phi* ph : carried) settle(low_.value(ph->out));
    const State outside = save();
    const std::size_t made = g_.body.ops.size();
    const std::string id = std::to_string(s.id), k = "k" + id;
    line("// Reverse of the loop at " + forward_.at(s.loc) + ", last iteration first.");
    line("for (std::size_t " + k + " = steps_" + id + "; " + k + "-- > 0;) {");
    ++depth_;
    for (const std::string& r : forward_.restore(s, k)) line(r);
    open_scope(&s);
    declare_aliases(&s.body);
    for (ir::ValueId v : outer) variable(v, sure.count(v) == 0);
    const std::size_t ops = g_.body.ops.size(), shares = values_.cotangents.size();
    // The value at the end of the iteration takes the carried cotangent as its first
    // share: in its variable where the body reads it (its shares are summed there, and
    // a path that adds none leaves it there) or another variable refers to its; read
    // from the carried variable where only its own op's rule reads it.
    for (const Phi* ph : carried) {
      const ir::ValueId out = low_.value(ph->out), second = low_.value(ph->second);
      const Tensor t = variable(out, true);
      pass_.ct.erase(out);
      rec_.alike(b_.value_of(t), primal_.at(second));
      if (!pass_.is_active(second)) continue;
      if (l.read.count(second) == 0 && aliased_.count(target_of(second)) == 0)
        pass_.ct[second] = t;
      else
        pass_.add_ct(second, t);
    }
    write_from(ops, shares);
    block(s.body);
    for (const Phi* ph : carried) {
      declare(low_.value(ph->in));
      line(target_of(low_.value(ph->out)) + " = " + target_of(low_.value(ph->in)) + ";");
    }
    close_scope();
    --depth_;
    line("}");
    // What the body's reverse named is out of scope now.
    for (std::size_t i = made; i < g_.body.ops.size(); ++i)
      for (ir::ValueId v : g_.body.ops[i].results) rec_.retire(v);
    restore(outside);
    for (const Phi* ph : carried) pass_.ct.erase(low_.value(ph->out));
    for (ir::ValueId v : outer) variable(v, sure.count(v) == 0);
  }
  // v's cotangent, where it has one, in v's variable.
  void settle(ir::ValueId v) {
    declare(v);
    const auto it = pass_.ct.find(v);
    if (it == pass_.ct.end()) return;
    const ir::ValueId gv = b_.value_of(it->second);
    const std::string d = target_of(v), text = rec_.write(gv).text;
    if (const auto held = holds_.find(d); text == d || (held != holds_.end() && held->second == gv)) return;
    line(d + " = " + text + ";");
    if (const auto held = holds_.find(d); held != holds_.end()) rec_.retire(held->second);
    holds_[d] = gv;
  }
  // From here v's cotangent is its variable, defined or not at run time (maybe).
  Tensor variable(ir::ValueId v, bool maybe) {
    const Tensor t = b_.param(tl::detail::unknown_type());
    const ir::ValueId gv = b_.value_of(t);
    const std::string d = target_of(v);
    rec_.name(gv, d);
    rec_.alike(gv, primal_.at(v));
    if (maybe) maybe_.insert(gv);
    pass_.ct[v] = t;
    if (const auto held = holds_.find(d); held != holds_.end()) rec_.retire(held->second);
    holds_[d] = gv;
    return t;
  }

  // A tl::cond traced on a condition known at run time only is an `if` op, whose
  // engine rule runs where a result has a cotangent: each branch's reverse gives the
  // values it reads from outside their cotangents, zeros where it gave none, summed
  // apart (d_w_cond<id>) and added to theirs after it.
  void cond(const Node& s) {
    std::vector<Tensor> outs;
    std::string any;
    bool sure = false;
    for (const Phi& ph : s.phis) {
      outs.push_back(low_.lowered(ph.out) ? pass_.take_ct(low_.value(ph.out)) : Tensor());
      if (!outs.back().defined()) continue;
      const ir::ValueId gv = b_.value_of(outs.back());
      sure = sure || maybe_.count(gv) == 0;
      any += (any.empty() ? "" : " || ") + rec_.write(gv).text + ".defined()";
    }
    if (any.empty()) return;
    State unseeded = save();
    if (!sure) {
      line("if (" + any + ") {");
      ++depth_;
    }
    std::vector<ir::ValueId> free;
    for (ir::ValueId w : low_.loops.at(&s).free)
      if (pass_.is_active(w)) free.push_back(w);
    const std::string id = std::to_string(s.id);
    line("// Reverse of the tl::cond at " + forward_.at(s.loc) +
         ": each branch sums what it gives the values");
    line("// it reads from outside, added to theirs after it (the engine's rule for the traced if).");
    const auto apart_before = apart_;
    for (ir::ValueId w : free) {
      const std::string d = identifier(target_of(w)) + "_cond" + id;
      line("tl::Tensor " + d + ";");
      declared_.insert(d);
      apart_[w] = d;
    }
    const State before = save();
    for (const bool first : {true, false}) {
      restore(before);
      for (ir::ValueId w : free) pass_.ct.erase(w);
      line(first ? "if (" + cond_name(s.id) + ") {" : "} else {");
      ++depth_;
      declare_aliases(first ? &s.body : &s.orelse);
      --depth_;
      path(first ? s.body : s.orelse, s.phis, outs, first);
      ++depth_;
      for (ir::ValueId w : free) {
        const auto it = pass_.ct.find(w);
        const std::string d = apart_.at(w), zero = "tl::zeros_like(" + rec_.write(primal_.at(w)).text + ")";
        if (it == pass_.ct.end())
          line(d + " = " + zero + ";");
        else if (settle(w); maybe_.count(b_.value_of(pass_.ct.at(w))) != 0)
          line(d + " = " + d + ".defined() ? " + d + " : " + zero + ";");
      }
      --depth_;
    }
    line("}");
    apart_ = apart_before;
    restore(before);
    const std::size_t ops = g_.body.ops.size(), shares = values_.cotangents.size();
    for (ir::ValueId w : free) {
      const Tensor t = b_.param(tl::detail::unknown_type());
      rec_.name(b_.value_of(t), identifier(target_of(w)) + "_cond" + id);
      rec_.alike(b_.value_of(t), primal_.at(w));
      pass_.add_ct(w, t);
    }
    write_from(ops, shares);
    if (sure) return;
    --depth_;
    line("}");
    for (const Phi& ph : s.phis)
      if (low_.lowered(ph.out)) unseeded.ct.erase(low_.value(ph.out));  // taken either way
    join(save(), unseeded);
  }

  // tl::fori_loop, tl::while_loop and tl::scan, loop ops when traced, whose engine
  // rule runs where a result has a cotangent: a reverse loop carries the carried
  // values' cotangents (zeros where none) and sums each iteration's shares of the
  // values the body reads from outside (d_w_sum<id>, from zeros), and both are added
  // to theirs after it; a scan's step output takes its step of its output's cotangent,
  // and its sequences the stack of their steps' slices' cotangents. An empty
  // tl::fori_loop records no loop: its result is its initial value.
  void structured_loop(const Node& s) {
    std::vector<const Phi*> carried;
    std::vector<Tensor> outs;
    std::string any;
    bool sure = false;
    for (const Phi& ph : s.phis) {
      if (!pass_.is_active(low_.value(ph.out))) continue;
      carried.push_back(&ph);
      outs.push_back(pass_.take_ct(low_.value(ph.out)));
      if (!outs.back().defined()) continue;
      const ir::ValueId gv = b_.value_of(outs.back());
      sure = sure || maybe_.count(gv) == 0;
      any += (any.empty() ? "" : " || ") + rec_.write(gv).text + ".defined()";
    }
    // A tl::scan's outputs: each step's output takes its step of the output's
    // cotangent (held in the output's variable).
    std::vector<std::size_t> seeded;
    std::vector<bool> maybe_seed;
    for (std::size_t i = 0; i < s.ys.size(); ++i) {
      const ir::ValueId ys = low_.value(s.ys[i]);
      if (!pass_.is_active(ys) || pass_.ct.count(ys) == 0) continue;
      settle(ys);
      const Tensor ct = pass_.take_ct(ys);
      seeded.push_back(i);
      maybe_seed.push_back(maybe_.count(b_.value_of(ct)) != 0);
      sure = sure || !maybe_seed.back();
      any += (any.empty() ? "" : " || ") + target_of(ys) + ".defined()";
    }
    if (any.empty()) return;
    State unseeded = save();
    if (!sure) {
      line("if (" + any + ") {");
      ++depth_;
    }
    const Lowering::Loop& l = low_.loops.at(&s);
    std::vector<std::size_t> sequences;  // the slices whose cotangents are stacked
    for (std::size_t i = 0; i < s.x.size(); ++i)
      if (pass_.is_active(low_.value(s.x[i])) && pass_.is_active(low_.value(s.xs[i]))) sequences.push_back(i);
    const auto steps = [&](std::size_t i) { return "d_" + p_.values[std::size_t(s.x[i])].name + "_steps"; };
    std::vector<ir::ValueId> free;
    for (ir::ValueId w : l.free)
      if (pass_.is_active(w)) free.push_back(w);
    const std::string id = std::to_string(s.id), k = "k" + id;
    const bool empty_is_init = s.structured == "tl::fori_loop";
    const auto zeros = [&](ir::ValueId v) {
      return "tl::zeros_like(" + rec_.write(primal_.at(v)).text + ")";
    };
    const auto carry = [&](const Phi* ph) { return target_of(low_.value(ph->out)) + "_carry"; };
    std::map<ir::ValueId, std::string> sums;  // named before the shares inside go apart
    for (ir::ValueId w : free) sums[w] = identifier(target_of(w)) + "_sum" + id;
    const auto sum = [&](ir::ValueId w) { return sums.at(w); };
    line("// Reverse of the " + s.structured + " at " + forward_.at(s.loc) +
         ", last iteration first: the carried value's cotangent");
    line(
        "// and the sums of each iteration's shares, added after it (the engine's rule for the traced "
        "loop).");
    const State outside = save();
    if (empty_is_init) {
      line("if (steps_" + id + " > 0) {");
      ++depth_;
    }
    for (std::size_t i = 0; i < carried.size(); ++i)
      line("tl::Tensor " + carry(carried[i]) + " = " + or_zeros(outs[i], low_.value(carried[i]->out)) + ";");
    for (ir::ValueId w : free) line("tl::Tensor " + sum(w) + " = " + zeros(w) + ";");
    for (std::size_t i : sequences) line("std::vector<tl::Tensor> " + steps(i) + "(" + s.count + ");");
    const std::size_t made = g_.body.ops.size();
    line("for (std::size_t " + k + " = steps_" + id + "; " + k + "-- > 0;) {");
    ++depth_;
    for (const std::string& r : forward_.restore(s, k)) line(r);
    open_scope(&s);
    const auto apart_before = apart_;
    for (ir::ValueId w : free) {
      apart_[w] = identifier(target_of(w)) + "_step" + id;
      line("tl::Tensor " + apart_[w] + ";");
      declared_.insert(apart_[w]);
      pass_.ct.erase(w);
    }
    declare_aliases(&s.body);
    std::size_t ops = g_.body.ops.size(), shares = values_.cotangents.size();
    for (const Phi* ph : carried) {
      const ir::ValueId second = low_.value(ph->second);
      if (!pass_.is_active(second)) continue;
      const Tensor t = b_.param(tl::detail::unknown_type());
      rec_.name(b_.value_of(t), carry(ph));
      rec_.alike(b_.value_of(t), primal_.at(second));
      if (pass_.ct.count(second) == 0 && l.read.count(second) == 0 && aliased_.count(target_of(second)) == 0)
        pass_.ct[second] = t;
      else
        pass_.add_ct(second, t);
    }
    write_from(ops, shares);
    for (std::size_t j = 0; j < seeded.size(); ++j) {
      const ir::ValueId y = low_.value(s.y[seeded[j]]);
      if (!pass_.is_active(y)) continue;
      const std::string d_ys = target_of(low_.value(s.ys[seeded[j]]));
      const Tensor t = b_.param(tl::detail::unknown_type());
      rec_.name(b_.value_of(t),
                "tl::squeeze(tl::slice(" + d_ys + ", 0, " + s.index + ", " + s.index + " + 1), 0)");
      rec_.alike(b_.value_of(t), primal_.at(y));
      const State before_seed = save();
      if (maybe_seed[j]) {
        line("if (" + d_ys + ".defined()) {");
        ++depth_;
      }
      ops = g_.body.ops.size();
      shares = values_.cotangents.size();
      pass_.add_ct(y, t);
      write_from(ops, shares);
      if (maybe_seed[j]) {
        --depth_;
        line("}");
        join(save(), before_seed);
      }
    }
    block(s.body);
    for (const Phi* ph : carried) {
      const ir::ValueId in = low_.value(ph->in);
      const auto it = pass_.ct.find(in);
      if (it != pass_.ct.end()) settle(in);
      line(carry(ph) + " = " + or_zeros(it == pass_.ct.end() ? Tensor() : it->second, in) + ";");
    }
    for (std::size_t i : sequences) {
      const ir::ValueId x = low_.value(s.x[i]);
      const auto it = pass_.ct.find(x);
      if (it != pass_.ct.end()) settle(x);
      line(steps(i) + "[" + s.index + "] = " + or_zeros(it == pass_.ct.end() ? Tensor() : pass_.ct.at(x), x) +
           ";");
    }
    for (ir::ValueId w : free) {
      const auto it = pass_.ct.find(w);
      if (it == pass_.ct.end()) continue;
      settle(w);
      const std::string d = apart_.at(w), add = sum(w) + " = " + sum(w) + " + " + d + ";";
      line(maybe_.count(b_.value_of(pass_.ct.at(w))) != 0 ? "if (" + d + ".defined()) " + add : add);
    }
    close_scope();
    --depth_;
    line("}");
    for (std::size_t i = made; i < g_.body.ops.size(); ++i)
      for (ir::ValueId v : g_.body.ops[i].results) rec_.retire(v);
    apart_ = apart_before;
    restore(outside);
    ops = g_.body.ops.size();
    shares = values_.cotangents.size();
    const auto added = [&](ir::ValueId v, const std::string& name) {
      const Tensor t = b_.param(tl::detail::unknown_type());
      rec_.name(b_.value_of(t), name);
      rec_.alike(b_.value_of(t), primal_.at(v));
      pass_.add_ct(v, t);
    };
    for (const Phi* ph : carried)
      if (low_.lowered(ph->first) && pass_.is_active(low_.value(ph->first)))
        added(low_.value(ph->first), carry(ph));
    for (ir::ValueId w : free) added(w, sum(w));
    for (std::size_t i : sequences) added(low_.value(s.xs[i]), "tl::stack(" + steps(i) + ", 0)");
    write_from(ops, shares);
    if (empty_is_init) {
      const State ran = save();
      restore(outside);
      --depth_;
      line("} else {");
      ++depth_;
      ops = g_.body.ops.size();
      shares = values_.cotangents.size();
      for (std::size_t i = 0; i < carried.size(); ++i)
        if (outs[i].defined() && low_.lowered(carried[i]->first) &&
            pass_.is_active(low_.value(carried[i]->first)))
          pass_.add_ct(low_.value(carried[i]->first), outs[i]);
      write_from(ops, shares);
      --depth_;
      line("}");
      join(ran, save());
    }
    if (sure) return;
    --depth_;
    line("}");
    for (const Phi* ph : carried) unseeded.ct.erase(low_.value(ph->out));  // taken either way
    for (std::size_t i : seeded) unseeded.ct.erase(low_.value(s.ys[i]));
    join(save(), unseeded);
  }
  // ct, a cotangent of v (undefined: none), or zeros of v's type where it has none.
  std::string or_zeros(const Tensor& ct, ir::ValueId v) {
    const std::string zero = "tl::zeros_like(" + rec_.write(primal_.at(v)).text + ")";
    if (!ct.defined()) return zero;
    const std::string d = rec_.write(b_.value_of(ct)).text;
    return maybe_.count(b_.value_of(ct)) != 0 ? d + ".defined() ? " + d + " : " + zero : d;
  }

  // Where a value's variable was referred to by another's, it holds that one's shares
  // too: its cotangent is the variable, defined or not.
  void refer(ir::ValueId side) {
    const Tensor t = b_.param(tl::detail::unknown_type());
    rec_.name(b_.value_of(t), target_of(side));
    rec_.alike(b_.value_of(t), primal_.at(side));
    maybe_.insert(b_.value_of(t));
    pass_.ct[side] = t;
    if (const auto held = holds_.find(target_of(side)); held != holds_.end()) rec_.retire(held->second);
    holds_[target_of(side)] = b_.value_of(t);
  }

  const Lowering::Alias* alias(ir::ValueId out, bool taken) const {
    for (const Lowering::Alias& a : low_.aliases)
      if (a.out == out && a.taken == taken) return &a;
    return nullptr;
  }

  State save() const { return {pass_.ct, maybe_, holds_}; }
  void restore(const State& s) {
    pass_.ct = s.ct;
    maybe_ = s.maybe;
    holds_ = s.holds;
    for (const auto& [d, gv] : holds_) rec_.name(gv, d);
  }
  // After two paths: each cotangent they left different is its variable, a value of
  // its own, defined or not at run time where one path left it without one.
  void join(const State& a, const State& b) {
    std::set<ir::ValueId> values;
    for (const auto& [v, t] : a.ct) values.insert(v);
    for (const auto& [v, t] : b.ct) values.insert(v);
    restore(a);
    for (ir::ValueId v : values) {
      const auto x = a.ct.find(v), y = b.ct.find(v);
      const bool in_a = x != a.ct.end(), in_b = y != b.ct.end();
      if (in_a && in_b && x->second.is_same(y->second)) continue;
      const std::string d = target_of(v);
      const Tensor t = b_.param(tl::detail::unknown_type());
      const ir::ValueId gv = b_.value_of(t);
      rec_.name(gv, d);
      rec_.alike(gv, primal_.at(v));
      pass_.ct[v] = t;
      holds_[d] = gv;
      declare(v);
      const bool sure = in_a && in_b && a.maybe.count(b_.value_of(x->second)) == 0 &&
                        b.maybe.count(b_.value_of(y->second)) == 0;
      if (!sure) maybe_.insert(gv);
    }
  }

  // The sweep's ops from ops on, and the cotangents summed from shares on.
  void write_from(std::size_t ops, std::size_t shares) {
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
        line((list ? "const std::vector<tl::Tensor> " : "const tl::Tensor ") + t + " = " +
             rec_.define(v).text + ";");
        rec_.name(v, t);
      }
    }
  }
  // A weak scalar written as its number beside its partner reads nothing; written
  // alone it reads its partner's dtype.
  void count_uses(const ir::Op& op, std::map<ir::ValueId, int>& uses) const {
    if (op.name() == "weak_scalar") return;
    for (ir::ValueId v : op.operands) {
      ++uses[v];
      const ir::Op* made = rec_.made_by(v);
      if (made != nullptr && made->name() == "weak_scalar" &&
          std::find(op.operands.begin(), op.operands.end(), made->operands[0]) == op.operands.end())
        ++uses[made->operands[0]];
    }
  }
  // The variable holding the cotangent of a value of the lowered body.
  std::string target_of(ir::ValueId fv) const {
    if (const auto it = apart_.find(fv); it != apart_.end()) return it->second;
    if (const auto it = low_.target.find(fv); it != low_.target.end()) return it->second;
    const auto& args = low_.function().body.args;
    for (std::size_t i = 0; i < args.size(); ++i)
      if (args[i] == fv) return "d_" + low_.names[i].text;
    return "d_" + p_.values[std::size_t(low_.program_value.at(fv))].name;
  }
  // v's cotangent's variable, declared in the innermost scope whose loop defines v.
  void declare(ir::ValueId v) {
    const std::string d = target_of(v);
    if (d.find('[') != std::string::npos || !declared_.insert(d).second) return;
    Scope* in = &scopes_.front();
    for (Scope& s : scopes_)
      if (s.loop != nullptr && low_.loops.at(s.loop).own.count(v) != 0) in = &s;
    in->declarations.push_back(in->indent + "tl::Tensor " + d + ";");
  }
  void open_scope(const Node* loop) {
    scopes_.push_back({loop, out_.lines.size(), std::string(std::size_t(2 * depth_), ' '), {}});
  }
  void close_scope() {
    const Scope& s = scopes_.back();
    out_.lines.insert(out_.lines.begin() + std::ptrdiff_t(s.at), s.declarations.begin(),
                      s.declarations.end());
    scopes_.pop_back();
  }
  // The references of the values that are, where a condition holds, a value from
  // before them (Lowering::Alias), whose scope is `scope`: in the order of the
  // program, so that a reference's targets are declared before it (a value passed on
  // may be passed on again: y = x.astype(...), z = c ? y : ...).
  void declare_aliases(const Block* scope) {
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
      if (then == nullptr || orelse == nullptr) line("tl::Tensor " + d + "_apart;");
      const auto side = [&](const Lowering::Alias* x) {
        return x != nullptr ? target_of(x->side) : d + "_apart";
      };
      // One value on both paths: d is its cotangent, whichever ran.
      if (then != nullptr && orelse != nullptr && then->side == orelse->side)
        line("tl::Tensor& " + d + " = " + side(then) + ";");
      else
        line("tl::Tensor& " + d + " = " + a.cond + " ? " + side(then) + " : " + side(orelse) + ";");
      for (const Lowering::Alias* x : {then, orelse})
        if (x != nullptr) {
          aliased_[d].insert(target_of(x->side));
          aliased_[target_of(x->side)].insert(d);
        }
    }
  }
  // gv is the cotangent of each of xs so far: d = its op written out (d's previous
  // value among its operands; tested where it may be undefined), and from now on gv
  // is read as d.
  void assign(ir::ValueId gv, const std::vector<Share>& xs) {
    for (const auto& [of, by] : xs) {
      const std::string d = target_of(of);
      const Expr e = rec_.named(gv) ? rec_.write(gv) : rec_.define(gv);
      std::string text = e.text;
      if (text == d) continue;
      const ir::Op* made = rec_.made_by(gv);
      const auto held = holds_.find(d);
      const bool sum = made != nullptr && made->name() == "add" && held != holds_.end() &&
                       made->operands[0] == held->second && !rec_.named(gv);
      // Where d may be undefined at run time (one path left it without a value, or it
      // may refer to another's variable, or be an element another read gives shares
      // too, shares this sweep does not see), the share is added only where it has a
      // value.
      const bool shared = may_hold_others(d) || low_.in_place.count(of) != 0;
      // A sum whose first operand may be undefined (a carried cotangent, read where it
      // is first summed).
      const bool maybe_first =
          made != nullptr && made->name() == "add" && !rec_.named(gv) && maybe_.count(made->operands[0]) != 0;
      if (sum && (maybe_first || shared))
        text = maybe_sum(d, made->operands[1]);
      else if (shared && maybe_first)
        throw std::logic_error("a sum of shares that may be undefined, for a variable shared");
      else if (shared)
        text = maybe_sum(d, gv);
      else if (maybe_first)
        text = maybe_sum(rec_.write(made->operands[0]).text, made->operands[1]);
      // A share that may itself be undefined (a cotangent passed on from after a
      // branch or a loop) is added only where it has a value.
      const bool adds = made != nullptr && made->name() == "add" && !rec_.named(gv);
      const ir::ValueId added = adds ? made->operands[1] : gv;
      const bool guard = maybe_.count(added) != 0 && (adds || shared);
      if (guard && !(sum && maybe_.count(made->operands[0]) == 0)) maybe_.insert(gv);
      if (held != holds_.end() && held->second != gv) rec_.retire(held->second);
      note(by);
      declare(of);
      line((guard ? "if (" + rec_.write(added).text + ".defined()) " : std::string()) + d + " = " + text +
           ";");
      holds_[d] = gv;
      if (!rec_.named(gv)) rec_.name(gv, d);
    }
  }
  // The comment before the first statement of op `by`'s rule (none for a share that
  // is no rule's).
  void note(const ir::Op* by) {
    if (by != nullptr && by != commented_) {
      const Node& n = *low_.node_of.at(by->results.at(0));
      line("// " + (n.fn == "custom" ? std::string("the custom rule's backward half") : n.fn) + ", " +
           forward_.at(n.loc));
    }
    commented_ = by;
  }
  // Whether d may refer to a variable that has been given a value (or be referred to
  // by one, through a chain of references), whose shares this sweep does not see in d's.
  bool may_hold_others(const std::string& d) const {
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
  // d + share where d has a value, else the share.
  std::string maybe_sum(const std::string& d, ir::ValueId share) {
    return d + ".defined() ? " + rec_.sum({d, 0}, share).text + " : " + rec_.write(share).text;
  }

  const Program& p_;
  Lowering& low_;
  const ir::Function& g_;
  ir::Builder& b_;
  tl::ad::VjpPass& pass_;
  const tl::ad::VjpValues& values_;
  const std::map<ir::ValueId, ir::ValueId>& primal_;  // f's values replayed in g
  Recording& rec_;
  const ForwardPass& forward_;
  Sweep out_;
  int depth_ = 0;
  std::vector<Scope> scopes_;
  std::map<ir::ValueId, std::string>
      apart_;  // in a tl::cond's branch: its own variable for a value from outside
  std::set<std::string> declared_;
  std::set<ir::ValueId> maybe_;               // cotangents defined or not at run time
  // The variables that may refer to, or be referred to by, each variable
  std::map<std::string, std::set<std::string>> aliased_;
  std::map<std::string, ir::ValueId> holds_;  // d_x -> the value it holds now
  const ir::Op* commented_ = nullptr;
  int temps_ = 0;
};

}  // namespace

Sweep engine_sweep(const Program& p, const std::string& seed, const ForwardPass& forward) {
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
    for (const auto& [fv, pv] : low.program_value) names[primal.at(fv)] = {p.values[std::size_t(pv)].name, 0};
    const Tensor seed_value = b.param(tl::detail::unknown_type());
    const ir::ValueId result = f.body.results.at(0);
    names[b.value_of(seed_value)] = {"d_" + p.values[std::size_t(p.result)].name, 0};
    // The seed has the result's type.
    Recording rec(g, names, kinds, scalars, "", {{b.value_of(seed_value), primal.at(result)}});
    if (pass.is_active(result)) pass.add_ct(result, seed_value);
    values.cotangents.clear();
    return Printer(p, low, g, b, pass, values, primal, rec, forward).print(seed, seed_value);
  } catch (const NotYet& e) {
    return {{}, {}, e.what};
  } catch (const tl::detail::UnknownTypeError&) {
    return {{}, {}, "a rule that reads a type known only at run time"};
  } catch (const std::logic_error&) {
    return {{}, {}, "a recording it cannot write back"};
  }
}

}  // namespace tlaloc_grad
