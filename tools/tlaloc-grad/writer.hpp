// The writer of generated gradients (emit.hpp): the Writer, whose parts are in
// emit.cpp (the functions written), emit_forward.cpp (the forward pass) and
// emit_reverse.cpp (the reverse sweep). Private to tlaloc-grad.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "program.hpp"
#include "rules.hpp"

namespace tlaloc_grad {

// Whether a cotangent variable holds a value at a point of the reverse sweep; an
// undefined tl::Tensor stands for zero, as in the AD engine.
enum class Has { none, yes, maybe };

// A source line cut for a comment.
std::string shorten(const std::string& s);

class Writer {
 public:
  explicit Writer(const Program& p) : p_(p) {
    name_scalar_tapes(p.body);
    count_reads(p.body, uses_);
    if (p.result >= 0) ++uses_[p.result];
  }

  // The gradient (tl::grad; with_value: tl::value_and_grad), the value and pullback
  // (tl::vjp), and the value and derivative along a tangent (tl::jvp; `checked`: the
  // tangents checked as tl::jvp checks them).
  std::string function(bool with_value);
  std::string vjp_function();
  std::string jvp_function(bool checked);

 private:
  const Program& p_;
  bool tangents_ = false;  // forward mode: each active value's tangent t_<value> beside it
  // Forward mode: active values whose tangent may be undefined at run time, a zero
  // the trace would not have computed (emit_forward.cpp, assign).
  std::set<ValueId> zero_tangent_;
  std::set<std::string> zero_lists_;  // tapes of tangents holding such tangents
  std::string out_;
  int depth_ = 0;
  std::map<ValueId, Has> has_;
  // Values from outside a tl:: region whose shares the region sums apart (their
  // cotangent variable there), as the engine's rules for the region's op do.
  std::map<ValueId, std::string> alias_;
  // How many times each value is an op's operand, a loop's initial value or a
  // branch's; and the results of ops that may return their operand unchanged, whose
  // shares then go straight to the operand's cotangent (the engine sees no op there):
  // y -> x for y = tl::reshape(x, ...), x.astype(...), ...
  std::map<ValueId, int> uses_;
  std::map<ValueId, ValueId> passed_;
  // The values after branches that are, on a path, a value from before the branch
  // (`y = c ? a : b;`, `if (c) y = x;`) that has other uses: their shares go straight
  // to that value's cotangent there, as the engine's do (it sees no op). out -> the
  // sides it may refer to.
  std::map<ValueId, std::vector<ValueId>> joined_;
  // The block whose reverse is being written, after the blocks around it whose
  // cotangents it shares: the plain branches' paths, up to the nearest loop body, tl::
  // region or the function's body (which have cotangents of their own).
  std::vector<const Block*> scope_;
  // The vector of a loop's scalar per iteration: saved_<name>, numbered where loops
  // one after another have counters of the same name.
  std::map<std::pair<int, std::string>, std::string> scalar_tapes_;
  const std::string& scalar_tape(const Node& s, const std::string& var) const {
    return scalar_tapes_.at({s.id, var});
  }

  const std::string& name(ValueId v) const { return p_.values[std::size_t(v)].name; }
  std::string at(const Loc& l) const;
  bool active(ValueId v) const { return v >= 0 && p_.values[std::size_t(v)].active; }
  bool undefined(ValueId v) const { return v >= 0 && p_.values[std::size_t(v)].undefined; }

  // ---- forward ----------------------------------------------------------------

  // What a block defines that is declared before a branch holding it, so that the
  // reverse sweep sees it (and what a loop saves per iteration): values, conditions,
  // custom rules' forward halves, and the loops inside (their vectors and counts).
  struct Defined {
    std::vector<ValueId> values;
    std::vector<int> conds;
    std::vector<ValueId> customs;
    std::vector<const Node*> loops;
    std::vector<std::pair<std::string, std::string>> scalars;  // Node::hoisted (name, type)
  };
  // A custom rule's forward half: its value and the residuals its backward half takes.
  static constexpr const char* kForwardHalf = "std::pair<tl::Tensor, std::vector<tl::Tensor>>";

  std::vector<int> loop_conds(const Node& s) const { return defined_in(s.body).conds; }

  // ---- reverse ----------------------------------------------------------------

  // Code run only where `condition` holds: what it adds is "maybe" after it.
  template <class F>
  void guarded_by(const std::string& condition, F body) {
    const auto before = has_;
    line("if (" + condition + ") {");
    ++depth_;
    body();
    --depth_;
    line("}");
    join(before, has_);
  }
  // Code run only when `cotangent` is defined.
  template <class F>
  void guarded(const std::string& cotangent, F body) {
    guarded_by(cotangent + ".defined()", body);
  }

  template <class F>
  void guarded_if_maybe(ValueId v, F body) {
    if (state(v) == Has::yes)
      body();
    else
      guarded(d(v), body);
  }

  // Runs body, the reverse of block b: a path of a plain branch inside the current
  // scope (shared) or a block with cotangents of its own.
  template <class F>
  void within(const Block& b, bool shared, F body) {
    const auto outer = scope_;
    if (!shared) scope_.clear();
    scope_.push_back(&b);
    body();
    scope_ = outer;
  }

  // ---- tl::cond, tl::fori_loop, tl::while_loop ----------------------------------

  // Runs body, the reverse of structured op s, only where one of its results has a
  // cotangent: the engine skips an op none of whose results has one (a region's
  // reverse would add zeros to what it uses from outside).
  template <class F>
  void seeded(const Node& s, F body) {
    std::vector<ValueId> results = s.ys;
    for (const Phi& ph : s.phis) results.push_back(ph.out);
    std::string any;
    for (ValueId v : results) {
      if (!active(v) || state(v) == Has::none) continue;
      if (state(v) == Has::yes) return body();
      any += (any.empty() ? "" : " || ") + d(v) + ".defined()";
    }
    if (any.empty()) return;
    guarded_by(any, body);
  }

  // Runs body with the shares of `free` going to variables of their own, named with
  // `suffix` and starting undefined; the names and states outside come back after.
  template <class F>
  void apart(const std::vector<ValueId>& free, const std::string& suffix, F body) {
    const auto alias = alias_;
    std::map<ValueId, Has> outside;
    for (ValueId w : free) {
      outside[w] = state(w);
      alias_[w] = "d_" + name(w) + suffix;
      has_[w] = Has::none;
    }
    body();
    alias_ = alias;
    for (const auto& [w, h] : outside) has_[w] = h;
  }

  // emit.cpp: the functions written, their headers and signatures
  std::string reverse_sweep(const std::string& seed);
  std::string wrt_names() const;
  std::string wrt_name() const;
  void name_scalar_tapes(const Block& b);
  void header(const std::string& what, const std::string& how);
  void signature(const std::string& result, bool tangent);
  std::string footer();
  void mark_unread_declarations();
  std::string tangent_or_zero(ValueId v) const;
  std::string d(ValueId v) const;
  std::string or_zeros(ValueId v) const;
  Has state(ValueId v) const;
  static std::string escape(const std::string& s);
  void line(const std::string& s);
  // The lines `write` writes, unindented, apart from the function's text.
  std::vector<std::string> lines_of(const std::function<void()>& write);

  // emit_forward.cpp: the forward pass (what is hoisted and saved, tangents)
  std::string spelled(const Node& s, Names& n) const;
  static std::string step_of(const std::string& seq, const std::string& at);
  void defined_in(const Block& b, Defined& d) const;
  Defined defined_in(const Block& b) const;
  void declare_hoisted(const Defined& d);
  void forward(const Block& b, bool hoisted = false);
  void forward_op(const Node& s, bool hoisted);
  void custom_forward(const Node& s, const Names& n, const std::string& comment, const std::string& decl);
  void tape(const Node& s);
  void custom_half(const Node& s);
  void assign(ValueId out, ValueId from, const std::string& decl = "", bool unrolled = false);
  std::string op_tangent(const Node& s, const Rule& r, const Names& n, std::vector<std::string> t);
  void forward_branch(const Node& s, bool hoisted);
  std::vector<ValueId> loop_values(const Node& s) const;
  std::vector<std::pair<std::string, std::string>> tapes(const Node& s) const;
  std::vector<std::pair<std::string, std::string>> inner_state(const Node& s) const;
  void forward_loop(const Node& s, bool hoisted);
  void loop_statement(const Node& s, bool save, bool unrolled);

  // emit_reverse.cpp: the reverse sweep, and the sums of the tl:: regions
  void declare_cotangents(const Block& b, bool with_params);
  bool passed_on(const Block& b, ValueId y);
  bool own_value(const Block& b, ValueId x) const;
  bool joined_through(const Block& b, const Node& s, const Phi& ph);
  bool goes_through(const Phi& ph, bool first) const;
  void touch_referenced(ValueId v);
  void accumulate(ValueId v, const std::string& c);
  void replace_sum(ValueId v, const std::string& sum, const std::string& share);
  void pass(ValueId from, ValueId to);
  void join(const std::map<ValueId, Has>& a, const std::map<ValueId, Has>& b);
  void reverse(const Block& b);
  void reverse_op(const Node& s);
  void scalars_of(const Block& b, bool replay_ifs = true, bool with_joins = false);
  void reverse_branch(const Node& s);
  void restore_iteration(const Node& s, const std::string& k);
  void reverse_loop(const Node& s);
  std::vector<ValueId> free_values(const Node& s) const;
  void reverse_cond(const Node& s);
  void reverse_structured_loop(const Node& s);
};

}  // namespace tlaloc_grad
