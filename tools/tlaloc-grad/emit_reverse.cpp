// The reverse sweep of a generated gradient, and the sums of the tl:: regions.
#include "writer.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace tlaloc_grad {

// d_v for the active values block b defines (phi outs of its branches and loops
// included; what a branch's blocks define is declared in the branch's reverse).
void Writer::declare_cotangents(const Block& b, bool with_params) {
  std::vector<ValueId> vals;
  if (with_params)
    for (std::size_t i = 0; i < p_.params.size(); ++i) {
      const Param& prm = p_.params[i];
      if (prm.value >= 0) vals.push_back(prm.value);
      if (prm.list && std::find(p_.wrt.begin(), p_.wrt.end(), i) != p_.wrt.end())
        line("std::vector<tl::Tensor> d_" + prm.name + "(" + prm.name + ".size());");
    }
  for (const Node& s : b) {
    if (s.kind == Node::Kind::op) vals.push_back(s.result);
    for (const Phi& ph : s.phis) vals.push_back(ph.out);
    vals.insert(vals.end(), s.ys.begin(), s.ys.end());
  }
  const auto joined = [&](ValueId v) {
    for (const Node& s : b)
      if (s.kind == Node::Kind::branch && s.structured.empty())
        for (const Phi& ph : s.phis)
          if (ph.out == v) return joined_through(b, s, ph);
    return false;
  };
  for (ValueId v : vals)
    if (active(v) && p_.values[std::size_t(v)].list.empty() && !passed_on(b, v) && !joined(v))
      line("tl::Tensor d_" + name(v) + ";");
}

// y = f(x, ...) of such a function, where x has other uses: when y is x, the engine
// adds each of y's shares to x's cotangent as it comes, among x's other shares. d_y
// refers to d_x then (and to a variable of its own otherwise), so the sums come out
// in the engine's order. x may be from outside a loop body or a tl:: region: the
// unrolled loop adds to d_x as it comes too, and a region's function to the sum of
// what it gives x (d_x inside it, Writer::apart). Declares that reference among b's
// cotangents; false for any other value.
bool Writer::passed_on(const Block& b, ValueId y) {
  const auto node = std::find_if(b.begin(), b.end(), [&](const Node& s) {
    return s.kind == Node::Kind::op && s.result == y && may_pass_on(s);
  });
  if (node == b.end() || !node->args[0].is_tensor() || !active(node->args[0].value) ||
      uses_[node->args[0].value] < 2)
    return false;
  const ValueId x = node->args[0].value;
  const std::string dx = d(x);
  if (dx.find('.') != std::string::npos) return false;
  line("tl::Tensor d_" + name(y) + "_apart;");
  line("tl::Tensor& d_" + name(y) + " = " + name(y) + ".is_same(" + name(x) + ") ? " + dx + " : d_" +
       name(y) + "_apart;");
  passed_[y] = x;
  has_[y] = Has::maybe;
  return true;
}

// Whether x is a value of b, or of the blocks around it whose cotangents b shares, or
// a parameter where those reach the function's body: a region or a loop body has
// cotangents of its own for what it uses from outside.
bool Writer::own_value(const Block& b, ValueId x) const {
  std::vector<const Block*> blocks{&b};
  if (!scope_.empty() && scope_.back() == &b) blocks = scope_;
  const auto defines = [&](const Block* blk) {
    return std::any_of(blk->begin(), blk->end(), [&](const Node& s) {
      return (s.kind == Node::Kind::op && s.result == x) ||
             std::any_of(s.phis.begin(), s.phis.end(), [&](const Phi& ph) { return ph.out == x; });
    });
  };
  const bool own = std::any_of(blocks.begin(), blocks.end(), defines);
  const bool param =
      blocks.front() == &p_.body &&
      std::any_of(p_.params.begin(), p_.params.end(), [&](const Param& prm) { return prm.value == x; });
  return (own || param) && d(x).find('.') == std::string::npos;
}

namespace {
// Whether node s, or a node inside it, reads v.
bool reads(const Node& s, ValueId v) {
  const auto in = [&](const Block& blk) {
    return std::any_of(blk.begin(), blk.end(), [&](const Node& n) { return reads(n, v); });
  };
  return std::any_of(s.args.begin(), s.args.end(),
                     [&](const Arg& a) { return a.is_tensor() && a.value == v; }) ||
         std::any_of(s.phis.begin(), s.phis.end(),
                     [&](const Phi& ph) { return ph.first == v || ph.second == v; }) ||
         std::find(s.xs.begin(), s.xs.end(), v) != s.xs.end() || in(s.head) || in(s.body) || in(s.orelse);
}
}  // namespace

// The value ph.out after branch s, where a side is a value from before the branch that
// something after the branch reads too (joined_; inside a nested block, any value with
// other uses, which may leave the block through a branch around it): d_out refers to
// that side's cotangent on its path (and to a variable of its own on the other), chosen
// by the branch's saved condition. Declares that reference among b's cotangents; false
// where no side is such a value.
bool Writer::joined_through(const Block& b, const Node& s, const Phi& ph) {
  const Defined inside = defined_in({s});
  const auto after = std::find_if(b.begin(), b.end(), [&](const Node& n) { return &n == &s; }) + 1;
  const auto through = [&](ValueId x) {
    return x >= 0 && active(x) && !undefined(x) &&
           std::find(inside.values.begin(), inside.values.end(), x) == inside.values.end() &&
           own_value(b, x) &&
           (std::any_of(after, b.end(), [&](const Node& n) { return reads(n, x); }) ||
            (&b == &p_.body ? p_.result == x : uses_[x] >= 2));
  };
  const bool first = through(ph.first), second = through(ph.second);
  if (!first && !second) return false;
  const std::string out = "d_" + name(ph.out), apart = out + "_apart";
  if (ph.first == ph.second) {
    alias_[ph.out] = d(ph.first);  // the same value on both paths: its cotangent
  } else {
    if (!first || !second) line("tl::Tensor " + apart + ";");
    line("tl::Tensor& " + out + " = " + cond_name(s.id) + " ? " + (first ? d(ph.first) : apart) + " : " +
         (second ? d(ph.second) : apart) + ";");
  }
  if (first) joined_[ph.out].push_back(ph.first);
  if (second && ph.second != ph.first) joined_[ph.out].push_back(ph.second);
  has_[ph.out] = Has::maybe;
  // Shares may reach a side through d_out by ways other than accumulate (a loop's
  // reference to its initial value's cotangent): its first share adds, too.
  for (ValueId x : joined_[ph.out])
    if (state(x) == Has::none) has_[x] = Has::maybe;
  return true;
}

// Whether ph's cotangent is already its side's on the first path (or the second).
bool Writer::goes_through(const Phi& ph, bool first) const {
  const auto it = joined_.find(ph.out);
  const ValueId side = first ? ph.first : ph.second;
  return it != joined_.end() && std::find(it->second.begin(), it->second.end(), side) != it->second.end();
}

// After a share to v: the values whose cotangents v's refers to may hold one now
// (and on, where those refer to others).
void Writer::touch_referenced(ValueId v) {
  std::vector<ValueId> targets;
  if (const auto x = passed_.find(v); x != passed_.end()) targets.push_back(x->second);
  if (const auto j = joined_.find(v); j != joined_.end())
    targets.insert(targets.end(), j->second.begin(), j->second.end());
  for (ValueId x : targets) {
    if (state(x) == Has::none) has_[x] = Has::maybe;
    touch_referenced(x);
  }
}

// d_v += contribution, as the engine's add_tangents: existing + new.
void Writer::accumulate(ValueId v, const std::string& c) {
  if (!active(v)) return;
  const std::string d = this->d(v);
  const bool simple = c.find(' ') == std::string::npos;
  const std::string pc = simple ? c : "(" + c + ")";
  switch (state(v)) {
    case Has::none:
      line(d + " = " + c + ";");
      break;
    case Has::yes:
      line(d + " = " + d + " + " + pc + ";");
      break;
    case Has::maybe:
      line(d + " = " + d + ".defined() ? " + d + " + " + pc + " : " + pc + ";");
      break;
  }
  has_[v] = Has::yes;
  touch_referenced(v);
}

// d_v = sum, a rule's text that adds d_v's shares so far itself (Rule::with_so_far),
// or the share alone where d_v may have none yet: a Hessian's second lowering of the
// text then reads no cotangent on a path where it has no value.
void Writer::replace_sum(ValueId v, const std::string& sum, const std::string& share) {
  const std::string d = this->d(v);
  line(d + " = " + (state(v) == Has::maybe ? d + ".defined() ? " + sum + " : " + share : sum) + ";");
  has_[v] = Has::yes;
  touch_referenced(v);
}

// Flows d_from into d_to, when d_from may hold something.
void Writer::pass(ValueId from, ValueId to) {
  if (!active(from) || !active(to)) return;
  const Has h = state(from);
  if (h == Has::none) return;
  if (h == Has::yes) return accumulate(to, d(from));
  guarded(d(from), [&] { accumulate(to, d(from)); });
}

void Writer::join(const std::map<ValueId, Has>& a, const std::map<ValueId, Has>& b) {
  std::map<ValueId, Has> r;
  std::set<ValueId> keys;
  for (const auto& kv : a) keys.insert(kv.first);
  for (const auto& kv : b) keys.insert(kv.first);
  for (ValueId k : keys) {
    const Has x = a.count(k) ? a.at(k) : Has::none, y = b.count(k) ? b.at(k) : Has::none;
    r[k] = x == y ? x : Has::maybe;
  }
  has_ = std::move(r);
}

void Writer::reverse(const Block& b) {
  for (auto it = b.rbegin(); it != b.rend(); ++it) {
    switch (it->kind) {
      case Node::Kind::scalar:
        break;
      case Node::Kind::op:
        reverse_op(*it);
        break;
      case Node::Kind::branch:
        if (it->structured.empty())
          reverse_branch(*it);
        else
          seeded(*it, [&] { reverse_cond(*it); });
        break;
      case Node::Kind::loop:
        if (it->structured.empty())
          reverse_loop(*it);
        else
          seeded(*it, [&] { reverse_structured_loop(*it); });
        break;
    }
  }
}

void Writer::reverse_op(const Node& s) {
  // A scan's slices get their cotangents from the scan (reverse_structured_loop).
  if (s.fn.empty() || s.fn == "scan_slice" || !active(s.result) || state(s.result) == Has::none) return;
  Names n;
  spelled(s, n);
  if (s.fn == "custom") {
    return guarded_if_maybe(s.result, [&] {
      line("// the custom rule's backward half, " + at(s.loc));
      line("const std::vector<tl::Tensor> " + n.y + "_cts = " + s.callee + ".backward(" + n.y +
           "_fwd.second, " + n.g + ");");
      for (std::size_t i = 0; i < s.args.size(); ++i)
        if (active(s.args[i].value)) accumulate(s.args[i].value, n.y + "_cts[" + std::to_string(i) + "]");
    });
  }
  const Rule& r = *find_rule(s.fn);
  if (r.vjp == nullptr)
    refuse(Code::not_differentiable, s.loc,
           "tl::" + s.fn + " has no build-time reverse rule (only a forward one)");
  const auto apply = [&] {
    line("// " + s.fn + ", " + at(s.loc));
    for (std::size_t i = 0; i < s.args.size(); ++i) {
      if (!s.args[i].is_tensor() || !active(s.args[i].value)) continue;
      std::string c;
      try {
        c = r.vjp(r, i, n);
      } catch (const std::invalid_argument& e) {
        refuse(Code::not_differentiable, s.loc, "tl::" + s.fn + ": " + e.what());
      }
      if (c.empty()) continue;
      // A share the engine adds in parts, where the operand may have a cotangent already.
      if (r.with_so_far != nullptr && state(s.args[i].value) != Has::none)
        if (const std::string sum = r.with_so_far(r, i, n, d(s.args[i].value)); !sum.empty()) {
          replace_sum(s.args[i].value, sum, c);
          continue;
        }
      accumulate(s.args[i].value, c);
    }
  };
  const auto x = passed_.find(s.result);
  if (x == passed_.end()) return guarded_if_maybe(s.result, apply);
  // Where the op passed x on, y's shares are in x's cotangent already.
  const auto before = has_;
  line("if (!" + n.y + ".is_same(" + name(x->second) + ")) {");
  ++depth_;
  guarded_if_maybe(s.result, apply);
  --depth_;
  line("}");
  join(before, has_);
}

// A block's scalars computed again where its reverse needs them (which it may not).
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
      line("if (" + cond_name(s.id) + ") {  // the scalars of the if at " + at(s.loc));
      ++depth_;
      scalars_of(s.body, true, true);
      --depth_;
      line("} else {");
      ++depth_;
      scalars_of(s.orelse, true, true);
      --depth_;
      line("}");
      continue;
    }
    if (s.kind != Node::Kind::scalar || s.check || (s.assignment && !(with_joins && s.declares.empty())))
      continue;
    line(replayed(s));
  }
}

void Writer::reverse_branch(const Node& s) {
  if (s.body.empty() && s.orelse.empty() && s.phis.empty()) return;  // a saved condition only
  const auto before = has_;
  const auto side = [&](const Block& blk, bool first) {
    has_ = before;
    ++depth_;
    within(blk, true, [&] {
      scalars_of(blk);
      declare_cotangents(blk, false);
      for (const Phi& ph : s.phis)
        if (!goes_through(ph, first)) pass(ph.out, first ? ph.first : ph.second);
      reverse(blk);
    });
    --depth_;
    return has_;
  };
  const std::size_t before_if = out_.size();
  line("if (" + cond_name(s.id) + ") {");
  const std::size_t then_at = out_.size();
  const auto then_state = side(s.body, true);
  const bool then_empty = out_.size() == then_at;
  const std::size_t else_line = out_.size();
  line("} else {");
  const std::size_t else_at = out_.size();
  const auto else_state = side(s.orelse, false);
  const bool else_empty = out_.size() == else_at;
  line("}");
  // A branch of inactive ops has nothing to do in reverse: no empty if is written,
  // nor an empty side (`if (!cond_3) {` where only the else has work).
  if (then_empty && else_empty) {
    out_.resize(before_if);
  } else if (then_empty || else_empty) {
    out_.erase(else_line, else_at - else_line);
    if (then_empty)
      out_.replace(before_if, then_at - before_if,
                   std::string(std::size_t(depth_) * 2, ' ') + "if (!" + cond_name(s.id) + ") {\n");
  }
  join(then_state, else_state);
}

// What iteration k of loop s saved, under the names the forward pass gave it.
void Writer::restore_iteration(const Node& s, const std::string& k) {
  for (const auto* list : {&s.scalars, &s.kept})
    for (const auto& [var, type] : *list)
      line("[[maybe_unused]] const " + type + " " + var + " = " + scalar_tape(s, var) + "[" + k + "];");
  for (ValueId v : loop_values(s))
    line("[[maybe_unused]] const tl::Tensor& " + name(v) + " = saved_" + name(v) + "[" + k + "];");
  for (int c : loop_conds(s))
    line("[[maybe_unused]] const bool " + cond_name(c) + " = saved_" + cond_name(c) + "[" + k + "];");
  for (ValueId v : defined_in(s.body).customs)
    line("[[maybe_unused]] const " + std::string(kForwardHalf) + "& " + name(v) + "_fwd = saved_" + name(v) +
         "_fwd[" + k + "];");
  for (const auto& [var, type] : inner_state(s))
    line("[[maybe_unused]] const " + type + "& " + var + " = saved_" + var + "[" + k + "];");
  scalars_of(s.body, false);
}

void Writer::reverse_loop(const Node& s) {
  // Inside the loop a value from outside that the body uses, or a carried value's
  // initial one, may or may not have received a share yet, and each phi's d_out is
  // the next iteration's d_in, possibly undefined.
  std::vector<ValueId> reached = free_values(s);
  for (const Phi& ph : s.phis) reached.push_back(ph.first);
  for (ValueId v : reached)
    if (active(v) && state(v) == Has::none) has_[v] = Has::maybe;
  for (const Phi& ph : s.phis) has_[ph.out] = Has::maybe;
  std::vector<ValueId> body = loop_values(s);
  for (ValueId v : body) has_.erase(v);
  const auto outside = has_;
  const std::string id = std::to_string(s.id);
  line("// Reverse of the loop at " + at(s.loc) + ", last iteration first.");
  const std::string k = "k" + id;  // the iteration, last first
  line("for (std::size_t " + k + " = steps_" + id + "; " + k + "-- > 0;) {");
  ++depth_;
  restore_iteration(s, k);
  // In the first iteration a carried value is its initial value, whose shares then
  // go straight to it, in the order the unrolled loop gives them.
  for (const Phi& ph : s.phis) {
    if (!active(ph.in)) continue;
    if (!active(ph.first)) {
      line("tl::Tensor d_" + name(ph.in) + ";");
      continue;
    }
    line("tl::Tensor d_" + name(ph.in) + "_next;");
    line("tl::Tensor& d_" + name(ph.in) + " = " + k + " == 0 ? " + d(ph.first) + " : d_" + name(ph.in) +
         "_next;");
    has_[ph.in] = Has::maybe;
  }
  within(s.body, false, [&] {
    declare_cotangents(s.body, false);
    for (const Phi& ph : s.phis) pass(ph.out, ph.second);
    reverse(s.body);
  });
  for (const Phi& ph : s.phis)
    if (active(ph.out)) line(d(ph.out) + " = d_" + name(ph.in) + ";");
  --depth_;
  line("}");
  has_ = outside;
  // Without iterations the initial values take the shares directly.
  std::vector<const Phi*> direct;
  for (const Phi& ph : s.phis)
    if (active(ph.out) && active(ph.first)) direct.push_back(&ph);
  if (!direct.empty()) {
    line("if (steps_" + id + " == 0) {");
    ++depth_;
    for (const Phi* ph : direct) pass(ph->out, ph->first);
    --depth_;
    line("}");
  }
  for (const Phi& ph : s.phis)
    if (active(ph.out) && !active(ph.first)) pass(ph.out, ph.first);
}

// The active values defined before node s that its blocks use (the free values of
// the op it is when traced).
std::vector<ValueId> Writer::free_values(const Node& s) const {
  std::vector<ValueId> free;
  for (ValueId v : read_from_outside(s))
    if (active(v)) free.push_back(v);
  return free;
}

// A tl::cond traced on a condition known only at run time is an `if` op: each
// branch's reverse gives the cotangents of what it uses from outside, zeros where it
// gave none, and they are added there after it.
void Writer::reverse_cond(const Node& s) {
  const std::vector<ValueId> free = free_values(s);
  const std::string id = std::to_string(s.id);
  line("// Reverse of the tl::cond at " + at(s.loc) +
       ": each branch sums what it gives the values it uses from outside,");
  line("// which are added to them after it (the engine's rule for the traced if).");
  for (ValueId w : free) line("tl::Tensor d_" + name(w) + "_cond" + id + ";");
  const auto before = has_;
  const auto side = [&](const Block& blk, bool first) {
    has_ = before;
    ++depth_;
    apart(free, "_cond" + id, [&] {
      within(blk, false, [&] {
        scalars_of(blk);
        declare_cotangents(blk, false);
        for (const Phi& ph : s.phis) pass(ph.out, first ? ph.first : ph.second);
        reverse(blk);
      });
      for (ValueId w : free)
        if (state(w) != Has::yes) line(d(w) + " = " + or_zeros(w) + ";");
    });
    --depth_;
  };
  line("if (" + cond_name(s.id) + ") {");
  side(s.body, true);
  line("} else {");
  side(s.orelse, false);
  line("}");
  has_ = before;
  for (ValueId w : free) accumulate(w, "d_" + name(w) + "_cond" + id);
}

// tl::fori_loop (a scan when traced) and tl::while_loop: the reverse loop carries the
// carried value's cotangent (zeros where it has none) and sums each iteration's
// shares of the values the body uses from outside; both are added after the loop.
// An empty fori_loop records no scan: the result is the initial value.
void Writer::reverse_structured_loop(const Node& s) {
  std::vector<const Phi*> carried;
  for (const Phi& ph : s.phis)
    if (active(ph.out)) carried.push_back(&ph);
  // tl::scan: each output's cotangent seeds the step's output, and each of its
  // sequences gets each step's slice's cotangent, stacked (in the order of the
  // outputs and of the sequences, as the engine takes them).
  std::vector<std::size_t> seeded;
  for (std::size_t i = 0; i < s.ys.size(); ++i)
    if (active(s.ys[i]) && state(s.ys[i]) != Has::none) seeded.push_back(i);
  const bool seeds = !seeded.empty();
  std::vector<std::size_t> sequences;
  for (std::size_t i = 0; i < s.xs.size(); ++i)
    if (active(s.xs[i])) sequences.push_back(i);
  if (carried.empty() && !seeds) return;
  const std::vector<ValueId> free = free_values(s);
  const std::string id = std::to_string(s.id), k = "k" + id;
  const bool empty_is_init = s.structured == "tl::fori_loop";
  const auto slices = [&](std::size_t i) { return "d_" + name(s.x[i]) + "_steps"; };
  const auto carry = [&](const Phi* ph) { return "d_" + name(ph->out) + "_carry"; };
  const auto sum = [&](ValueId w) { return "d_" + name(w) + "_sum" + id; };
  line("// Reverse of the " + s.structured + " at " + at(s.loc) +
       ", last iteration first: the carried value's cotangent");
  line("// and the sums of each iteration's shares, added after it (the engine's rule for the traced loop).");
  const auto outside = has_;
  if (empty_is_init) {
    line("if (steps_" + id + " > 0) {");
    ++depth_;
  }
  for (const Phi* ph : carried) line("tl::Tensor " + carry(ph) + " = " + or_zeros(ph->out) + ";");
  for (ValueId w : free) line("tl::Tensor " + sum(w) + " = tl::zeros_like(" + name(w) + ");");
  for (std::size_t i : sequences) line("std::vector<tl::Tensor> " + slices(i) + "(" + s.count + ");");
  line("for (std::size_t " + k + " = steps_" + id + "; " + k + "-- > 0;) {");
  ++depth_;
  restore_iteration(s, k);
  for (ValueId v : loop_values(s)) has_.erase(v);
  for (const Phi* ph : carried) line("tl::Tensor d_" + name(ph->in) + ";");
  apart(free, "_step" + id, [&] {
    for (ValueId w : free) line("tl::Tensor " + d(w) + ";");
    // After the step's own cotangents of the values from outside, which a result
    // passed on from one of them refers to (passed_on).
    within(s.body, false, [&] { declare_cotangents(s.body, false); });
    for (const Phi* ph : carried) accumulate(ph->second, carry(ph));
    for (std::size_t i : seeded)
      guarded_if_maybe(s.ys[i], [&] { accumulate(s.y[i], step_of(d(s.ys[i]), s.index)); });
    within(s.body, false, [&] { reverse(s.body); });
    for (const Phi* ph : carried) line(carry(ph) + " = " + or_zeros(ph->in) + ";");
    for (std::size_t i : sequences) line(slices(i) + "[" + s.index + "] = " + or_zeros(s.x[i]) + ";");
    for (ValueId w : free) {
      if (state(w) == Has::yes) line(sum(w) + " = " + sum(w) + " + " + d(w) + ";");
      if (state(w) == Has::maybe)
        line("if (" + d(w) + ".defined()) " + sum(w) + " = " + sum(w) + " + " + d(w) + ";");
    }
  });
  --depth_;
  line("}");
  has_ = outside;
  for (const Phi* ph : carried) accumulate(ph->first, carry(ph));
  for (ValueId w : free) accumulate(w, sum(w));
  for (std::size_t i : sequences) accumulate(s.xs[i], "tl::stack(" + slices(i) + ", 0)");
  if (!empty_is_init) return;
  const auto ran = has_;
  has_ = outside;
  --depth_;
  line("} else {");
  ++depth_;
  for (const Phi* ph : carried) pass(ph->out, ph->first);
  --depth_;
  line("}");
  join(ran, has_);
}

}  // namespace tlaloc_grad
