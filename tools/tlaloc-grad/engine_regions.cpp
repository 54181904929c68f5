// The regions of the engine's sweep at build time (engine_printer.hpp): a C++ if as
// an if whose paths run their ops' rules, a C++ loop (which tracing unrolls) as a
// reverse loop over its saved iterations, and tl::cond, tl::fori_loop,
// tl::while_loop and tl::scan as the engine's rules for the traced `if` and loop ops
// sum their shares: per branch or per iteration, apart, added after.
#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <vector>

#include "core/tensor_impl.hpp"
#include "engine_printer.hpp"

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

}  // namespace

void SweepPrinter::branch(const Node& s) {
  std::vector<Tensor> outs;
  for (const Phi& ph : s.phis)
    outs.push_back(low_.lowered(ph.out) ? pass_.take_ct(low_.value(ph.out)) : Tensor());
  const State before = save();
  // A path without statements is left out when printed (code::Stmt::if_).
  code_.open_if(Expr::name(cond_name(s.id)));
  path(s.body, s.phis, outs, true);
  const State then = save();
  restore(before);
  code_.orelse();
  path(s.orelse, s.phis, outs, false);
  code_.close();
  join(then, save());
}

void SweepPrinter::path(const Block& b, const std::vector<Phi>& phis, const std::vector<Tensor>& outs,
                        bool first) {
  code_.add_all(forward_.scalars(b));
  const std::size_t ops = g_.body.ops.size(), shares = values_.cotangents.size();
  // A value after the branch is, on this path, the value it joins: its cotangent
  // is that value's, read as a value of its type; where it refers to that value's
  // variable, that variable holds its shares already, defined or not.
  for (std::size_t k = 0; k < phis.size(); ++k) {
    if (!low_.lowered(phis[k].out) || !low_.lowered(first ? phis[k].first : phis[k].second)) continue;
    const ir::ValueId side = low_.value(first ? phis[k].first : phis[k].second);
    if (alias(low_.value(phis[k].out), first) != nullptr) {
      variable(side, true);
      continue;
    }
    if (!outs[k].defined() || !pass_.is_active(side)) continue;
    const std::string out = rec_.write(b_.value_of(outs[k])).str(), d = target_of(side);
    // The first share of a value of the path: its variable takes it, and the rules
    // read it there.
    const bool first_share = pass_.ct.count(side) == 0 && !may_hold_others(side);
    const Tensor t = named(first_share ? d : out, side);
    if (first_share) {
      declare(side);
      if (out != d) add(code::Stmt::assign(d, Expr::text(out)));
      holds_[d] = b_.value_of(t);
    }
    if (maybe_.count(b_.value_of(outs[k])) != 0) maybe_.insert(b_.value_of(t));
    pass_.add_ct(side, t);
  }
  write_from(ops, shares);
  block(b);
}

void SweepPrinter::loop(const Node& s) {
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
    if (const auto it = pass_.ct.find(v); it != pass_.ct.end() && maybe_.count(b_.value_of(it->second)) == 0)
      sure.insert(v);
  }
  // A carried value that may be a value from before the loop is carried apart from
  // the variable of the loop's result, which may refer to that value's.
  for (const Phi* ph : carried) {
    const ir::ValueId out = low_.value(ph->out);
    settle(out);
    if (l.carried_unless.count(out) != 0)
      add(code::Stmt::declare("tl::Tensor", target_of(out) + "_next", Expr::name(target_of(out))));
  }
  const State outside = save();
  const std::size_t made = g_.body.ops.size();
  const std::string id = std::to_string(s.id), k = "k" + id;
  add(code::Stmt::comment("Reverse of the loop at " + forward_.at(s.loc) + ", last iteration first."));
  code_.open("for (std::size_t " + k + " = steps_" + id + "; " + k + "-- > 0;)");
  code_.add_all(forward_.restore(s, k));
  open_scope(&s);
  declare_aliases(&s.body);
  for (ir::ValueId v : outer) variable(v, sure.count(v) == 0);
  const std::size_t ops = g_.body.ops.size(), shares = values_.cotangents.size();
  // The value at the end of the iteration takes the carried cotangent first.
  for (const Phi* ph : carried) carry_at_head(*ph, l);
  write_from(ops, shares);
  block(s.body);
  for (const Phi* ph : carried) {
    const ir::ValueId out = low_.value(ph->out);
    declare(low_.value(ph->in));
    if (l.uncarried.count(out) != 0) continue;
    add(code::Stmt::assign(target_of(out) + (l.carried_unless.count(out) != 0 ? "_next" : ""),
                           Expr::name(target_of(low_.value(ph->in)))));
  }
  close_scope();
  code_.close();
  retire_since(made);
  restore(outside);
  for (const Phi* ph : carried) pass_.ct.erase(low_.value(ph->out));
  for (ir::ValueId v : outer) variable(v, sure.count(v) == 0);
}

void SweepPrinter::carry_at_head(const Phi& ph, const Lowering::Loop& l) {
  const ir::ValueId out = low_.value(ph.out), second = low_.value(ph.second);
  pass_.ct.erase(out);
  if (l.uncarried.count(out) != 0) return;
  Tensor t;
  // Where the value at the end of the iteration is a value from before the loop
  // itself, its shares so far are in that value's variable already.
  if (const auto unless = l.carried_unless.find(out); unless != l.carried_unless.end()) {
    const std::string carried = target_of(out) + "_carried";
    add(code::Stmt::declare("const tl::Tensor", carried,
                            Expr::conditional(Expr::text(unless->second), Expr::name("tl::Tensor()"),
                                              Expr::name(target_of(out) + "_next"))));
    t = named(carried, out);
    maybe_.insert(b_.value_of(t));
  } else {
    t = variable(out, true);
    pass_.ct.erase(out);
  }
  rec_.alike(b_.value_of(t), primal_.at(second));
  if (pass_.is_active(second)) carry_in(second, t, l);
}

void SweepPrinter::carry_in(ir::ValueId second, const Tensor& t, const Lowering::Loop& l) {
  if (pass_.ct.count(second) == 0 && l.read.count(second) == 0 && aliased_.count(target_of(second)) == 0)
    pass_.ct[second] = t;
  else
    pass_.add_ct(second, t);
}

void SweepPrinter::retire_since(std::size_t made) {
  for (std::size_t i = made; i < g_.body.ops.size(); ++i)
    for (ir::ValueId v : g_.body.ops[i].results) rec_.retire(v);
}

void SweepPrinter::settle(ir::ValueId v) {
  declare(v);
  const auto it = pass_.ct.find(v);
  if (it == pass_.ct.end()) return;
  const ir::ValueId gv = b_.value_of(it->second);
  const std::string d = target_of(v);
  const Expr value = rec_.write(gv);
  if (const auto held = holds_.find(d); value.str() == d || (held != holds_.end() && held->second == gv))
    return;
  add(code::Stmt::assign(d, value));
  if (const auto held = holds_.find(d); held != holds_.end()) rec_.retire(held->second);
  holds_[d] = gv;
}

Tensor SweepPrinter::variable(ir::ValueId v, bool maybe) {
  const std::string d = target_of(v);
  const Tensor t = named(d, v);
  const ir::ValueId gv = b_.value_of(t);
  if (maybe) maybe_.insert(gv);
  pass_.ct[v] = t;
  if (const auto held = holds_.find(d); held != holds_.end()) rec_.retire(held->second);
  holds_[d] = gv;
  return t;
}

void SweepPrinter::cond(const Node& s) {
  std::vector<Tensor> outs;
  std::string any;
  bool sure = false;
  for (const Phi& ph : s.phis) {
    outs.push_back(low_.lowered(ph.out) ? pass_.take_ct(low_.value(ph.out)) : Tensor());
    if (outs.back().defined()) seeds(outs.back(), rec_.write(b_.value_of(outs.back())).str(), any, sure);
  }
  if (any.empty()) return;
  State unseeded = save();
  if (!sure) code_.open_if(Expr::text(any));
  std::vector<ir::ValueId> free;
  for (ir::ValueId w : low_.loops.at(&s).free)
    if (pass_.is_active(w)) free.push_back(w);
  const std::string id = std::to_string(s.id);
  add(code::Stmt::comment("Reverse of the tl::cond at " + forward_.at(s.loc) +
                          ": each branch sums what it gives the values"));
  add(code::Stmt::comment(
      "it reads from outside, added to theirs after it (the engine's rule for the traced if)."));
  const auto apart_before = apart_;
  for (ir::ValueId w : free) {
    const std::string d = identifier(target_of(w)) + "_cond" + id;
    add(code::Stmt::declare("tl::Tensor", d));
    declared_.insert(d);
    apart_[w] = d;
  }
  const State before = save();
  for (const bool first : {true, false}) {
    restore(before);
    for (ir::ValueId w : free) pass_.ct.erase(w);
    if (first)
      code_.open_if(Expr::name(cond_name(s.id)));
    else
      code_.orelse();
    declare_aliases(first ? &s.body : &s.orelse);
    path(first ? s.body : s.orelse, s.phis, outs, first);
    for (ir::ValueId w : free) {
      const auto it = pass_.ct.find(w);
      const std::string d = apart_.at(w);
      const Expr zero = zeros_of(w);
      if (it == pass_.ct.end())
        add(code::Stmt::assign(d, zero));
      else if (settle(w); maybe_.count(b_.value_of(pass_.ct.at(w))) != 0)
        add(code::Stmt::assign(d, Expr::conditional(Expr::text(d + ".defined()"), Expr::name(d), zero)));
    }
  }
  code_.close();
  apart_ = apart_before;
  restore(before);
  const std::size_t ops = g_.body.ops.size(), shares = values_.cotangents.size();
  for (ir::ValueId w : free) pass_.add_ct(w, named(identifier(target_of(w)) + "_cond" + id, w));
  write_from(ops, shares);
  if (sure) return;
  code_.close();
  for (const Phi& ph : s.phis)
    if (low_.lowered(ph.out)) unseeded.ct.erase(low_.value(ph.out));  // taken either way
  join(save(), unseeded);
}

SweepPrinter::Structured SweepPrinter::structured_parts(const Node& s) {
  Structured r;
  for (const Phi& ph : s.phis) {
    if (!pass_.is_active(low_.value(ph.out))) continue;
    r.carried.push_back(&ph);
    r.outs.push_back(pass_.take_ct(low_.value(ph.out)));
    if (r.outs.back().defined())
      seeds(r.outs.back(), rec_.write(b_.value_of(r.outs.back())).str(), r.any, r.sure);
  }
  // A tl::scan's outputs: each step's output takes its step of the output's
  // cotangent (held in the output's variable).
  for (std::size_t i = 0; i < s.ys.size(); ++i) {
    const ir::ValueId ys = low_.value(s.ys[i]);
    if (!pass_.is_active(ys) || pass_.ct.count(ys) == 0) continue;
    settle(ys);
    const Tensor ct = pass_.take_ct(ys);
    r.seeded.push_back(i);
    r.maybe_seed.push_back(maybe_.count(b_.value_of(ct)) != 0);
    seeds(ct, target_of(ys), r.any, r.sure);
  }
  for (std::size_t i = 0; i < s.x.size(); ++i)
    if (pass_.is_active(low_.value(s.x[i])) && pass_.is_active(low_.value(s.xs[i]))) r.sequences.push_back(i);
  for (ir::ValueId w : low_.loops.at(&s).free)
    if (pass_.is_active(w)) {
      r.free.push_back(w);
      r.sums[w] = identifier(target_of(w)) + "_sum" + std::to_string(s.id);
    }
  return r;
}

std::string SweepPrinter::carry_name(const Phi& ph) { return target_of(low_.value(ph.out)) + "_carry"; }
std::string SweepPrinter::steps_name(const Node& s, std::size_t i) const {
  return "d_" + p_.values[std::size_t(s.x[i])].name + "_steps";
}

void SweepPrinter::structured_loop(const Node& s) {
  const Structured r = structured_parts(s);
  if (r.any.empty()) return;
  State unseeded = save();
  if (!r.sure) code_.open_if(Expr::text(r.any));
  const std::string id = std::to_string(s.id);
  add(code::Stmt::comment("Reverse of the " + s.structured + " at " + forward_.at(s.loc) +
                          ", last iteration first: the carried value's cotangent"));
  add(code::Stmt::comment(
      "and the sums of each iteration's shares, added after it (the engine's rule for the traced loop)."));
  const State outside = save();
  const bool empty_is_init = s.structured == "tl::fori_loop";
  if (empty_is_init) code_.open_if(Expr::text("steps_" + id + " > 0"));
  for (std::size_t i = 0; i < r.carried.size(); ++i)
    add(code::Stmt::declare("tl::Tensor", carry_name(*r.carried[i]),
                            or_zeros(r.outs[i], low_.value(r.carried[i]->out))));
  for (ir::ValueId w : r.free) add(code::Stmt::declare("tl::Tensor", r.sums.at(w), zeros_of(w)));
  for (std::size_t i : r.sequences)
    line("std::vector<tl::Tensor> " + steps_name(s, i) + "(" + s.count + ");");
  structured_iterations(s, r);
  restore(outside);
  structured_after(s, r);
  if (empty_is_init) {
    // Without iterations the result is the initial value: its shares go there.
    const State ran = save();
    restore(outside);
    code_.orelse();
    const std::size_t ops = g_.body.ops.size(), shares = values_.cotangents.size();
    for (std::size_t i = 0; i < r.carried.size(); ++i)
      if (const Phi& ph = *r.carried[i];
          r.outs[i].defined() && low_.lowered(ph.first) && pass_.is_active(low_.value(ph.first)))
        pass_.add_ct(low_.value(ph.first), r.outs[i]);
    write_from(ops, shares);
    code_.close();
    join(ran, save());
  }
  if (r.sure) return;
  code_.close();
  for (const Phi* ph : r.carried) unseeded.ct.erase(low_.value(ph->out));  // taken either way
  for (std::size_t i : r.seeded) unseeded.ct.erase(low_.value(s.ys[i]));
  join(save(), unseeded);
}

// The reverse loop: each iteration's values named, the shares of the values from
// outside apart (d_w_step<id>), the carried cotangent and a scan's step of its
// outputs' first, then the body's rules; the carried cotangent, a scan's slices' and
// the sums kept for the iteration before.
void SweepPrinter::structured_iterations(const Node& s, const Structured& r) {
  const std::string id = std::to_string(s.id), k = "k" + id;
  const std::size_t made = g_.body.ops.size();
  code_.open("for (std::size_t " + k + " = steps_" + id + "; " + k + "-- > 0;)");
  code_.add_all(forward_.restore(s, k));
  open_scope(&s);
  const auto apart_before = apart_;
  for (ir::ValueId w : r.free) {
    apart_[w] = identifier(target_of(w)) + "_step" + id;
    add(code::Stmt::declare("tl::Tensor", apart_[w]));
    declared_.insert(apart_[w]);
    pass_.ct.erase(w);
  }
  declare_aliases(&s.body);
  const Lowering::Loop& l = low_.loops.at(&s);
  const std::size_t ops = g_.body.ops.size(), shares = values_.cotangents.size();
  for (const Phi* ph : r.carried) {
    const ir::ValueId second = low_.value(ph->second);
    if (!pass_.is_active(second)) continue;
    carry_in(second, named(carry_name(*ph), second), l);
  }
  write_from(ops, shares);
  for (std::size_t j = 0; j < r.seeded.size(); ++j) scan_seed(s, r.seeded[j], r.maybe_seed[j]);
  block(s.body);
  // What the iteration before is given (a body that passes its carried value on
  // gives the carried cotangent back: no statement).
  const auto keep = [&](const std::string& to, ir::ValueId v) {
    const auto it = pass_.ct.find(v);
    const Expr value = or_zeros(it == pass_.ct.end() ? Tensor() : it->second, v);
    if (value.str() != to) add(code::Stmt::assign(to, value));
  };
  for (const Phi* ph : r.carried) keep(carry_name(*ph), low_.value(ph->in));
  for (std::size_t i : r.sequences) keep(steps_name(s, i) + "[" + s.index + "]", low_.value(s.x[i]));
  for (ir::ValueId w : r.free) {
    if (pass_.ct.count(w) == 0) continue;
    settle(w);
    const std::string d = apart_.at(w);
    code::Stmt sum =
        code::Stmt::assign(r.sums.at(w), Expr::binary("+", Expr::name(r.sums.at(w)), Expr::name(d)));
    add(maybe_.count(b_.value_of(pass_.ct.at(w))) != 0
            ? code::Stmt::guarded(Expr::text(d + ".defined()"), sum)
            : sum);
  }
  close_scope();
  code_.close();
  retire_since(made);
  apart_ = apart_before;
}

// A scan's step output takes its step of its output's cotangent, where that has one.
void SweepPrinter::scan_seed(const Node& s, std::size_t i, bool maybe) {
  const ir::ValueId y = low_.value(s.y[i]);
  if (!pass_.is_active(y)) return;
  const std::string d_ys = target_of(low_.value(s.ys[i]));
  const Tensor t =
      named("tl::squeeze(tl::slice(" + d_ys + ", 0, " + s.index + ", " + s.index + " + 1), 0)", y);
  const State before = save();
  if (maybe) code_.open_if(Expr::text(d_ys + ".defined()"));
  const std::size_t ops = g_.body.ops.size(), shares = values_.cotangents.size();
  pass_.add_ct(y, t);
  write_from(ops, shares);
  if (!maybe) return;
  code_.close();
  join(save(), before);
}

// After the reverse loop: the carried cotangent to the initial values, the sums to the
// values from outside, the stacked steps to a scan's sequences.
void SweepPrinter::structured_after(const Node& s, const Structured& r) {
  const std::size_t ops = g_.body.ops.size(), shares = values_.cotangents.size();
  for (const Phi* ph : r.carried)
    if (low_.lowered(ph->first) && pass_.is_active(low_.value(ph->first)))
      pass_.add_ct(low_.value(ph->first), named(carry_name(*ph), low_.value(ph->first)));
  for (ir::ValueId w : r.free) pass_.add_ct(w, named(r.sums.at(w), w));
  for (std::size_t i : r.sequences)
    pass_.add_ct(low_.value(s.xs[i]), named("tl::stack(" + steps_name(s, i) + ", 0)", low_.value(s.xs[i])));
  write_from(ops, shares);
}

// A value of the sweep standing for C++ text (a variable, an expression) of v's type.
Tensor SweepPrinter::named(const std::string& text, ir::ValueId v) {
  const Tensor t = b_.param(tl::detail::unknown_type());
  rec_.name(b_.value_of(t), text);
  rec_.alike(b_.value_of(t), primal_.at(v));
  return t;
}

void SweepPrinter::seeds(const Tensor& ct, const std::string& d, std::string& any, bool& sure) {
  sure = sure || maybe_.count(b_.value_of(ct)) == 0;
  any += (any.empty() ? "" : " || ") + d + ".defined()";
}

Expr SweepPrinter::zeros_of(ir::ValueId v) {
  return Expr::call("tl::zeros_like", {rec_.write(primal_.at(v))});
}

Expr SweepPrinter::or_zeros(const Tensor& ct, ir::ValueId v) {
  const Expr zero = zeros_of(v);
  if (!ct.defined()) return zero;
  const Expr d = rec_.write(b_.value_of(ct));
  return maybe_.count(b_.value_of(ct)) != 0 ? Expr::conditional(Expr::member(d, ".defined()"), d, zero) : d;
}

}  // namespace tlaloc_grad
