// The writer of generated gradients (emit.hpp): the Writer, whose parts are in
// emit.cpp (the functions written) and emit_forward.cpp (the forward pass, and what
// the AD engine's reverse sweep, engine_sweep.cpp, reads of it again). Private to
// tlaloc-grad.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cppgen/code.hpp"
#include "program.hpp"
#include "rules.hpp"

namespace tlaloc_grad {

// A source line cut for a comment.
std::string shorten(const std::string& s);

class Writer {
 public:
  explicit Writer(const Program& p) : p_(p) { name_scalar_tapes(p.body); }

  // The gradient (tl::grad; with_value: tl::value_and_grad), the value and pullback
  // (tl::vjp), and the value and derivative along a tangent (tl::jvp; `checked`: the
  // tangents checked as tl::jvp checks them).
  // `after`: functions written after it (tl::hessian's, which calls it).
  std::string function(bool with_value);
  std::string vjp_function();
  std::string jvp_function(bool checked, code::Block after = {});

 private:
  const Program& p_;
  bool tangents_ = false;  // forward mode: each active value's tangent t_<value> beside it
  // Forward mode: active values whose tangent may be undefined at run time, a zero
  // the trace would not have computed (emit_forward.cpp, assign).
  std::set<ValueId> zero_tangent_;
  std::set<std::string> zero_lists_;  // tapes of tangents holding such tangents
  // The file up to the function, the function's head, and its body so far.
  code::Block file_;
  std::string head_;
  code::Builder body_;
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

  // emit.cpp: the functions written, their headers and signatures
  std::string reverse_sweep(const std::string& seed);
  std::string wrt_names() const;
  std::string wrt_name() const;
  void name_scalar_tapes(const Block& b);
  void header(const std::string& what, const std::string& how);
  void signature(const std::string& result, bool tangent);
  // The file printed: the function, then `after`.
  std::string footer(code::Block after = {});
  std::string tangent_or_zero(ValueId v) const;
  static std::string escape(const std::string& s);
  void line(const std::string& s) { body_.line(s); }
  // `decl name = value;` (decl: a type), or `name = value;` where decl is empty; then
  // `  // comment` where one is given.
  void set(const std::string& decl, const std::string& name, const std::string& value,
           const std::string& comment = "");
  // The statements `write` writes, apart from the function's.
  code::Block statements_of(const std::function<void()>& write);

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
  void scalars_of(const Block& b, bool replay_ifs = true, bool with_joins = false);
  void restore_iteration(const Node& s, const std::string& k);
};

}  // namespace tlaloc_grad
