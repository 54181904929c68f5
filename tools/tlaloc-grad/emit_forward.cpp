// The forward pass of a generated function: the ops as written, what a branch declares
// before it, what a loop saves per iteration, and (forward mode) the tangents; and
// what the reverse sweep (engine_sweep.cpp) reads of it again: an iteration's saved
// values, and scalar statements computed again.
#include "writer.hpp"

#include <algorithm>
#include <functional>

#include "cppgen/code.hpp"
#include "engine_rules.hpp"

namespace tlaloc_grad {

std::string Writer::spelled(const Node& s, Names& n) const {
  for (const Arg& a : s.args) {
    n.args.push_back(a.is_tensor() ? name(a.value) : a.text);
    n.tensor.push_back(a.is_tensor());
  }
  n.y = name(s.result);
  n.space = s.space;
  if (s.fn.empty()) return s.text;
  if (s.fn == "scan_slice") return step_of(n.args[0], s.text);
  if (s.fn == "custom") {
    std::string call = s.callee + "(";
    for (std::size_t i = 0; i < n.args.size(); ++i) call += (i ? ", " : "") + n.args[i];
    return call + ")";
  }
  const Rule& r = *find_rule(s.fn);
  return r.spell(r, n);
}

// Step `at` of a sequence (a tl::scan's xs, their tangents or the ys' cotangents).
std::string Writer::step_of(const std::string& seq, const std::string& at) {
  return "tl::squeeze(tl::slice(" + seq + ", 0, " + at + ", " + at + " + 1), 0)";
}

void Writer::defined_in(const Block& b, Defined& d) const {
  for (const Node& s : b) {
    if (s.kind == Node::Kind::op && !undefined(s.result)) {
      d.values.push_back(s.result);
      if (s.fn == "custom" && active(s.result)) d.customs.push_back(s.result);
    }
    if (s.kind == Node::Kind::loop) d.loops.push_back(&s);
    if (!s.hoisted.empty()) d.scalars.emplace_back(s.declares, s.hoisted);
    for (const Phi& ph : s.phis) d.values.push_back(ph.out);
    d.values.insert(d.values.end(), s.ys.begin(), s.ys.end());
    if (s.kind != Node::Kind::branch) continue;
    d.conds.push_back(s.id);
    defined_in(s.body, d);
    defined_in(s.orelse, d);
  }
}

Writer::Defined Writer::defined_in(const Block& b) const {
  Defined d;
  defined_in(b, d);
  return d;
}

void Writer::declare_hoisted(const Defined& d) {
  for (ValueId v : d.values) {
    body_.add(code::Stmt::declare("tl::Tensor", name(v)));
    if (tangents_ && active(v)) body_.add(code::Stmt::declare("tl::Tensor", "t_" + name(v)));
  }
  for (int c : d.conds) body_.add(code::Stmt::declare("bool", cond_name(c), code::Expr::name("false")));
  for (const auto& [var, type] : d.scalars) body_.add(code::Stmt::line(type + " " + var + "{};", var));
  if (tangents_) return;
  for (ValueId v : d.customs) body_.add(code::Stmt::declare(kForwardHalf, name(v) + "_fwd"));
  for (const Node* l : d.loops) {
    for (const auto& [tape, type] : tapes(*l)) body_.add(code::Stmt::declare(type, tape));
    set("std::size_t", "steps_" + std::to_string(l->id), "0");
  }
}

void Writer::forward(const Block& b, bool hoisted) {
  for (const Node& s : b) {
    switch (s.kind) {
      case Node::Kind::scalar:
        if (s.list.empty())
          body_.add(code::Stmt::line(s.text, s.hoisted.empty() ? s.declares : ""));
        else
          tape(s);
        break;
      case Node::Kind::op:
        forward_op(s, hoisted);
        break;
      case Node::Kind::branch:
        forward_branch(s, hoisted);
        break;
      case Node::Kind::loop:
        forward_loop(s, hoisted);
        break;
    }
  }
}

void Writer::forward_op(const Node& s, bool hoisted) {
  Names n;
  const std::string rhs = spelled(s, n);
  const std::string comment = (s.fn.empty() ? "" : s.fn + ", ") + at(s.loc) + ": " + shorten(s.source);
  const std::string decl = hoisted ? "" : "const tl::Tensor";
  // `tl::Tensor t;` is written where its undefined value flows on (assign).
  if (undefined(s.result)) return;
  if (!s.list.empty()) {
    set(decl, n.y, s.text, comment);
    if (tangents_ && active(s.result)) {
      set(decl, "t_" + n.y, s.init.empty() ? "t_" + s.text : s.init);
      if (zero_lists_.count(s.list) != 0) zero_tangent_.insert(s.result);
    }
    return;
  }
  if (s.fn == "custom" && active(s.result)) return custom_forward(s, n, comment, decl);
  set(decl, n.y, rhs, comment);
  // An element of a differentiated list: its tangent is the tangents' element there.
  const Value& read = p_.values[std::size_t(s.result)];
  if (s.fn.empty() && tangents_ && active(s.result) && !read.list.empty())
    set(decl, "t_" + n.y, "t_" + read.list + "[" + read.at + "]");
  if (s.fn == "scan_slice" && tangents_ && active(s.result))
    set(decl, "t_" + n.y, step_of("t_" + n.args[0], s.text));
  if (s.fn.empty() || s.fn == "custom" || s.fn == "scan_slice" || !active(s.result)) return;
  if (!tangents_) return;
  const Rule& r = *find_rule(s.fn);
  std::vector<std::string> t;
  for (std::size_t i = 0; i < s.args.size(); ++i)
    t.push_back(s.args[i].is_tensor() && moves_with(s.fn, s.args, i) && active(s.args[i].value)
                    ? "t_" + name(s.args[i].value)
                    : "");
  std::string tangent;
  try {
    tangent = op_tangent(s, r, n, std::move(t));
  } catch (const tlaloc::NotDifferentiableError& e) {
    refuse(Code::not_differentiable, s.loc, "tl::" + s.fn + ": " + e.what());
  }
  set(decl, "t_" + n.y, tangent);
}

// The tangent of op s from its operands' tangents t. Where an operand's tangent may be
// undefined (zero_tangent_), the rule is applied with and without it, chosen at run
// time, as the trace applies it to the operands that have tangents: a term of a zero
// tangent would add +0 where the trace has -0. Without any, the result's is undefined.
std::string Writer::op_tangent(const Node& s, const Rule& r, const Names& n, std::vector<std::string> t) {
  std::vector<ValueId> maybe;
  for (std::size_t i = 0; i < s.args.size(); ++i)
    if (!t[i].empty() && zero_tangent_.count(s.args[i].value) != 0 &&
        std::find(maybe.begin(), maybe.end(), s.args[i].value) == maybe.end())
      maybe.push_back(s.args[i].value);
  // Beyond two such operands the choices would multiply: their zeros are written out.
  if (maybe.size() > 2) {
    for (std::size_t i = 0; i < s.args.size(); ++i)
      if (!t[i].empty()) t[i] = tangent_or_zero(s.args[i].value);
    maybe.clear();
  }
  // An empty tangent with every operand's: the result does not move with the operands
  // that do (a share of a max pool moves with the cotangent only, not with x).
  const std::string all = engine_tangent(r, n, t);
  if (all.empty()) return "tl::zeros_like(" + n.y + ")";
  if (maybe.empty()) return all;
  bool undefined_somewhere = false;
  const std::function<std::string(std::size_t, std::vector<std::string>)> choose =
      [&](std::size_t k, std::vector<std::string> with) -> std::string {
    if (k == maybe.size()) {
      const bool none = std::all_of(with.begin(), with.end(), [](const std::string& x) { return x.empty(); });
      const std::string tangent = none ? "" : engine_tangent(r, n, with);
      undefined_somewhere = undefined_somewhere || tangent.empty();
      return tangent.empty() ? "tl::Tensor()" : tangent;
    }
    std::vector<std::string> without = with;
    for (std::size_t i = 0; i < s.args.size(); ++i)
      if (s.args[i].value == maybe[k]) without[i].clear();
    const std::string a = choose(k + 1, with), b = choose(k + 1, std::move(without));
    return "(t_" + name(maybe[k]) + ".defined() ? " + a + " : " + b + ")";
  };
  const std::string tangent = choose(0, std::move(t));
  if (undefined_somewhere) zero_tangent_.insert(s.result);
  return tangent;
}

// A custom rule's forward half: reverse mode keeps its residuals for the backward
// half; forward mode applies its JVP rule.
void Writer::custom_forward(const Node& s, const Names& n, const std::string& comment,
                            const std::string& decl) {
  std::string args;
  for (std::size_t i = 0; i < n.args.size(); ++i) args += (i ? ", " : "") + n.args[i];
  if (!tangents_) {
    const std::string fwd_decl = decl.empty() ? "" : "const " + std::string(kForwardHalf);
    set(fwd_decl, n.y + "_fwd", s.callee + ".forward(" + args + ")", comment);
    set(decl, n.y, n.y + "_fwd.first");
    return;
  }
  std::string tangents;
  for (std::size_t i = 0; i < s.args.size(); ++i)
    tangents += (i ? ", " : "") + tangent_or_zero(s.args[i].value);
  set("const std::pair<tl::Tensor, tl::Tensor>", n.y + "_jvp",
      s.callee + ".jvp({" + args + "}, {" + tangents + "})", comment);
  set(decl, n.y, n.y + "_jvp.first");
  set(decl, "t_" + n.y, n.y + "_jvp.second");
}

// A generated gradient's tape lowered again (tl::hessian): a statement on it, or a
// tensor pushed onto it; in forward mode the same on the tangents' tape beside it.
void Writer::tape(const Node& s) {
  if (!s.callee.empty()) return custom_half(s);
  const bool tangents = tangents_ && p_.active_lists.count(s.list) != 0;
  if (s.args.empty()) {
    line(s.text);
    if (tangents) line(s.init);
    return;
  }
  const ValueId v = s.args[0].value;
  if (!s.index.empty()) {
    // A scan's step: the steps are joined by tl::stack, which needs every tangent.
    set("", s.list + "[" + s.index + "]", name(v));
    if (tangents) set("", "t_" + s.list + "[" + s.index + "]", tangent_or_zero(v));
    return;
  }
  line(s.list + ".push_back(" + name(v) + ");");
  if (!tangents) return;
  // A tangent that may be undefined goes on as it is; what reads the tape allows for it.
  const bool maybe = active(v) && zero_tangent_.count(v) != 0;
  if (maybe) zero_lists_.insert(s.list);
  line("t_" + s.list + ".push_back(" + (maybe ? "t_" + name(v) : tangent_or_zero(v)) + ");");
}

// A custom rule's half in a generated gradient lowered again (Lowerer::custom_half);
// in forward mode run with its tangents by the library, as the engine differentiates
// what the half records. Its list's tangents are all undefined where every tangent
// given may be.
void Writer::custom_half(const Node& s) {
  std::vector<std::string> values, moving;
  bool maybe_none = true;
  for (const Arg& a : s.args) {
    values.push_back(name(a.value));
    moving.push_back(active(a.value) ? "t_" + name(a.value) : "tl::Tensor()");
    maybe_none = maybe_none && (!active(a.value) || zero_tangent_.count(a.value) != 0);
  }
  using code::Expr;
  Expr call, with_tangents;
  if (s.fn == "forward") {
    call = Expr::call(s.callee + ".forward", code::texts(values));
    with_tangents = Expr::call(s.callee + ".forward_jvp",
                               {Expr::braced(code::texts(values)), Expr::braced(code::texts(moving))});
  } else {
    const std::string residuals = s.text + ".second";
    const bool moved = p_.active_lists.count(s.text) != 0;
    maybe_none = maybe_none && (!moved || zero_lists_.count(s.text) != 0);
    call = Expr::call(s.callee + ".backward", code::texts({residuals, values[0]}));
    with_tangents = Expr::call(
        s.callee + ".backward_jvp",
        code::texts({residuals,
                     moved ? "t_" + residuals : "std::vector<tl::Tensor>(" + residuals + ".size())",
                     values[0], moving[0]}));
  }
  const std::string comment = s.fn + ", " + at(s.loc) + ": " + shorten(s.source);
  const std::string decl = s.init.empty() ? "" : "const " + s.init;
  if (!tangents_ || p_.active_lists.count(s.list) == 0) {
    set(decl, s.list, call.str(), comment);
    return;
  }
  set("const auto", s.list + "_jvp", with_tangents.str(), comment);
  set(decl, s.list, s.list + "_jvp.first");
  set(decl, "t_" + s.list, s.list + "_jvp.second");
  if (maybe_none) zero_lists_.insert(s.list);
}

// out = from, and in forward mode t_out = from's tangent. unrolled: a C++ branch or
// loop, which the trace unrolls: there a value without a tangent gives out none (the
// trace's zero is symbolic), where a tl:: region's carries and results are zeros.
void Writer::assign(ValueId out, ValueId from, const std::string& decl, bool unrolled) {
  set(decl, name(out), undefined(from) ? "tl::Tensor()" : name(from));
  if (!tangents_ || !active(out)) return;
  if (active(from) || undefined(from) || !unrolled) {
    set(decl, "t_" + name(out), active(from) ? "t_" + name(from) : tangent_or_zero(from));
    if (active(from) && zero_tangent_.count(from) != 0) zero_tangent_.insert(out);
    return;
  }
  set(decl, "t_" + name(out), "tl::Tensor()");
  zero_tangent_.insert(out);
}

void Writer::forward_branch(const Node& s, bool hoisted) {
  const std::string cond = cond_name(s.id);
  if (!hoisted) declare_hoisted(defined_in({s}));
  body_.add(code::Stmt::assign(cond, code::Expr::text(s.text), at(s.loc)));
  // A jump last in its block saves its condition only (lower_flow.cpp, skip_rest).
  if (s.body.empty() && s.orelse.empty() && s.phis.empty()) return;
  body_.open_if(code::Expr::name(cond));
  const bool unrolled = s.structured.empty();
  forward(s.body, true);
  for (const Phi& ph : s.phis) assign(ph.out, ph.first, "", unrolled);
  body_.orelse();
  forward(s.orelse, true);
  for (const Phi& ph : s.phis) assign(ph.out, ph.second, "", unrolled);
  body_.close();
}

// Every value a loop body defines, saved per iteration for the reverse sweep (the
// values after its inner loops included; their iterations are in their own vectors).
std::vector<ValueId> Writer::loop_values(const Node& s) const {
  std::vector<ValueId> vals;
  for (const Phi& ph : s.phis) vals.push_back(ph.in);
  for (ValueId v : defined_in(s.body).values) vals.push_back(v);
  return vals;
}

// The vectors (name, type) a loop fills, one entry per iteration: its values,
// conditions, counters and custom rules' forward halves, and the vectors and step
// counts of the loops inside it.
std::vector<std::pair<std::string, std::string>> Writer::tapes(const Node& s) const {
  std::vector<std::pair<std::string, std::string>> t;
  for (ValueId v : loop_values(s)) t.push_back({"saved_" + name(v), "std::vector<tl::Tensor>"});
  for (int c : loop_conds(s)) t.push_back({"saved_" + cond_name(c), "std::vector<bool>"});
  for (const auto& [var, type] : s.scalars) t.push_back({scalar_tape(s, var), "std::vector<" + type + ">"});
  for (const auto& [var, type] : s.kept) t.push_back({scalar_tape(s, var), "std::vector<" + type + ">"});
  for (ValueId v : defined_in(s.body).customs)
    t.push_back({"saved_" + name(v) + "_fwd", "std::vector<" + std::string(kForwardHalf) + ">"});
  for (const auto& [var, type] : inner_state(s)) t.push_back({"saved_" + var, "std::vector<" + type + ">"});
  return t;
}

// What the loops inside a loop's body (in branches too) leave for the reverse
// sweep, per iteration.
std::vector<std::pair<std::string, std::string>> Writer::inner_state(const Node& s) const {
  std::vector<std::pair<std::string, std::string>> t;
  for (const Node* n : defined_in(s.body).loops) {
    for (const auto& tape : tapes(*n)) t.push_back(tape);
    t.push_back({"steps_" + std::to_string(n->id), "std::size_t"});
  }
  return t;
}

// Reverse mode saves what each iteration computed; forward mode carries tangents.
void Writer::forward_loop(const Node& s, bool hoisted) {
  const std::string id = std::to_string(s.id), steps = "steps_" + id;
  const bool save = !tangents_;
  line("// The " + (s.structured.empty() ? std::string("loop") : s.structured) + " at " + at(s.loc) +
       (save ? ", saving what the reverse sweep needs." : ", tangents carried beside the values."));
  const bool unrolled = s.structured.empty();
  for (const Phi& ph : s.phis) assign(ph.out, ph.first, hoisted ? "" : "tl::Tensor", unrolled);
  if (save && !hoisted) {
    for (const auto& [tape, type] : tapes(s)) body_.add(code::Stmt::declare(type, tape));
    set("std::size_t", steps, "0");
  }
  for (ValueId ys : s.ys) {
    line("std::vector<tl::Tensor> " + name(ys) + "_steps(" + s.count + ");");
    if (tangents_ && active(ys)) line("std::vector<tl::Tensor> t_" + name(ys) + "_steps(" + s.count + ");");
  }
  // Written again when an iteration can end with a carried tangent undefined that
  // started defined: the next iteration's ops must allow for it.
  const std::size_t start = body_.current().size();
  for (;;) {
    std::set<ValueId> undefined_before;
    for (const Phi& ph : s.phis)
      if (zero_tangent_.count(ph.out) != 0) undefined_before.insert(ph.out);
    loop_statement(s, save, unrolled);
    const bool again = std::any_of(s.phis.begin(), s.phis.end(), [&](const Phi& ph) {
      return zero_tangent_.count(ph.out) != 0 && undefined_before.count(ph.out) == 0;
    });
    if (!again) break;
    body_.current().erase(body_.current().begin() + std::ptrdiff_t(start), body_.current().end());
  }
  const std::string decl = hoisted ? "" : "const tl::Tensor";
  for (ValueId ys : s.ys) {
    set(decl, name(ys), "tl::stack(" + name(ys) + "_steps, 0)");
    if (tangents_ && active(ys)) set(decl, "t_" + name(ys), "tl::stack(t_" + name(ys) + "_steps, 0)");
  }
}

// The loop statement itself, from `for (...) {` to its closing brace.
void Writer::loop_statement(const Node& s, bool save, bool unrolled) {
  const std::string steps = "steps_" + std::to_string(s.id);
  if (!s.head.empty())
    body_.open("for (;;)");
  else if (s.init.empty() && s.step.empty())
    body_.open("while (" + s.text + ")");
  else
    body_.open("for (" + s.init + "; " + s.text + "; " + s.step + ")");
  for (const Phi& ph : s.phis) assign(ph.in, ph.out, "const tl::Tensor", unrolled);
  if (!s.head.empty()) {
    forward(s.head);
    line("if (!" + s.text + ") break;");
  }
  if (!s.break_before.empty()) line("if (" + s.break_before + ") break;");
  if (save)
    for (const auto& [var, type] : s.scalars) line(scalar_tape(s, var) + ".push_back(" + var + ");");
  forward(s.body);
  if (save) {
    for (const auto& [var, type] : s.kept) line(scalar_tape(s, var) + ".push_back(" + var + ");");
    for (ValueId v : loop_values(s)) line("saved_" + name(v) + ".push_back(" + name(v) + ");");
    for (int c : loop_conds(s)) line("saved_" + cond_name(c) + ".push_back(" + cond_name(c) + ");");
    for (ValueId v : defined_in(s.body).customs)
      line("saved_" + name(v) + "_fwd.push_back(" + name(v) + "_fwd);");
    for (const auto& [var, type] : inner_state(s))
      line("saved_" + var + ".push_back(std::move(" + var + "));");
  }
  for (std::size_t i = 0; i < s.ys.size(); ++i) {
    set("", name(s.ys[i]) + "_steps[" + s.index + "]", name(s.y[i]));
    if (tangents_ && active(s.ys[i]))
      set("", "t_" + name(s.ys[i]) + "_steps[" + s.index + "]", tangent_or_zero(s.y[i]));
  }
  for (const Phi& ph : s.phis) assign(ph.out, ph.second, "", unrolled);
  if (save) line("++" + steps + ";");
  if (!s.break_after.empty()) line("if (" + s.break_after + ") break;");
  body_.close();
}

// What iteration k of loop s saved, under the names the forward pass gave it.
void Writer::restore_iteration(const Node& s, const std::string& k) {
  // Declared where the sweep may read them; the printer marks those it does not.
  const auto restore = [&](const std::string& type, const std::string& var, const std::string& tape) {
    body_.add(code::Stmt::declare("const " + type, var, code::Expr::text(tape + "[" + k + "]")));
  };
  for (const auto* list : {&s.scalars, &s.kept})
    for (const auto& [var, type] : *list) restore(type, var, scalar_tape(s, var));
  for (ValueId v : loop_values(s)) restore("tl::Tensor&", name(v), "saved_" + name(v));
  for (int c : loop_conds(s)) restore("bool", cond_name(c), "saved_" + cond_name(c));
  for (ValueId v : defined_in(s.body).customs)
    restore(std::string(kForwardHalf) + "&", name(v) + "_fwd", "saved_" + name(v) + "_fwd");
  for (const auto& [var, type] : inner_state(s)) restore(type + "&", var, "saved_" + var);
  scalars_of(s.body, false);
}

namespace {
// Whether b, with the paths of its ifs, assigns a scalar declared outside it: the join
// variable of an if (lower_scalars.cpp, end_path).
bool assigns_joins(const Block& b) {
  for (const Node& s : b) {
    if (s.kind == Node::Kind::scalar && s.assignment && s.declares.empty()) return true;
    if (s.kind == Node::Kind::branch && (assigns_joins(s.body) || assigns_joins(s.orelse))) return true;
  }
  return false;
}
}  // namespace

// The scalar statements of b, computed again where a reverse sweep needs them. With
// replay_ifs, an if in b that joins scalars runs its paths' scalar statements again
// too, so that its join variables hold the values b read after it (a loop body keeps
// those instead: lower_scalars.cpp, settle); with_joins: b is such a path.
void Writer::scalars_of(const Block& b, bool replay_ifs, bool with_joins) {
  for (const Node& s : b) {
    if (replay_ifs && s.kind == Node::Kind::branch && (assigns_joins(s.body) || assigns_joins(s.orelse))) {
      body_.open_if(code::Expr::name(cond_name(s.id)), "the scalars of the if at " + at(s.loc));
      scalars_of(s.body, true, true);
      body_.orelse();
      scalars_of(s.orelse, true, true);
      body_.close();
      continue;
    }
    if (s.kind != Node::Kind::scalar || s.check || (s.assignment && !(with_joins && s.declares.empty())))
      continue;
    body_.add(code::Stmt::line(s.text, s.hoisted.empty() ? s.declares : ""));
  }
}

}  // namespace tlaloc_grad
