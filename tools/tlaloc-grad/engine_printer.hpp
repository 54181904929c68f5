// The printer of the engine's reverse sweep at build time (engine_sweep.hpp): it
// drives tl::ad::VjpPass over the lowered body (engine_lowering.hpp) one op's rule at
// a time and writes what the engine records as C++. engine_sweep.cpp holds the
// straight-line part (rules, sums, declarations, references); engine_regions.cpp the
// regions (C++ ifs and loops, tl::cond and the tl:: loops).
#pragma once

#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "ad/modes.hpp"
#include "engine_lowering.hpp"
#include "engine_sweep.hpp"
#include "engine_writer.hpp"
#include "ir/builder.hpp"

namespace tlaloc_grad {

// The sweep, driven block by block over the program (tl::ad::VjpPass, one op's rule
// at a time) and written out as it is recorded: each cotangent an assignment in the
// order the engine sums it, values read twice as temporaries, the rest inline. A
// C++ if becomes an if whose paths run their ops' rules; after it, a cotangent one
// path changed is its variable, defined, or (where the other path left it without
// one) defined or not at run time, which what reads it then tests. A C++ loop, which
// tracing unrolls, becomes a reverse loop over its saved iterations.
class SweepPrinter {
  // A cotangent of value `of`, given by the rule of op `by`.
  struct Share {
    ir::ValueId of;
    const ir::Op* by;
  };
  // Where variables are declared: the sweep's start, or a reverse loop's body (each
  // iteration's cotangents start undefined), before statement `at` of the block open
  // at `level` (code::Builder::at).
  struct Scope {
    const Node* loop;
    std::size_t level, at;
    code::Block declarations;
  };
  // What a path changes, restored for the other path.
  struct State {
    std::unordered_map<ir::ValueId, Tensor> ct;
    std::set<ir::ValueId> maybe;
    std::map<std::string, ir::ValueId> holds;
  };

 public:
  SweepPrinter(const Program& p, Lowering& low, const ir::Function& g, ir::Builder& b, tl::ad::VjpPass& pass,
               const tl::ad::VjpValues& values, const std::map<ir::ValueId, ir::ValueId>& primal,
               Recording& rec, const ForwardPass& forward)
      : p_(p),
        low_(low),
        g_(g),
        b_(b),
        pass_(pass),
        values_(values),
        primal_(primal),
        rec_(rec),
        forward_(forward) {}

  Sweep print(const std::string& seed, const Tensor& seed_value);

 private:
  void line(const std::string& l) { code_.line(l); }
  void add(code::Stmt s) { code_.add(std::move(s)); }

  void block(const Block& b);

  // One op's rule; where its result's cotangent may be undefined at run time, only
  // where it is not.
  void step(const ir::Op& op);
  void guarded(const ir::Op& op);

  // y = f(x) of a function that may return x: where it did, y's shares are x's
  // already; elsewhere its rule runs.
  void pass_on(const ir::Op& op, const Lowering::Alias& a);

  void run(const ir::Op& op);

  void branch(const Node& s);

  void path(const Block& b, const std::vector<Phi>& phis, const std::vector<Tensor>& outs, bool first);

  // A C++ loop: a reverse loop over its iterations, last first. At the head of each,
  // the cotangents the iterations pass on are their variables, defined or not: each
  // carried value's (the shares of the value the next iteration started with, or of
  // the loop's result) and those of the values from outside that the body reads, to
  // which every iteration adds, as the unrolled trace does. In the first iteration a
  // carried value is its initial value, and without iterations the loop's result is:
  // their variables refer to its (Lowering::loop).
  void loop(const Node& s);
  // At the head of an iteration: ph's carried cotangent (none where the value at the
  // end of the iteration is another carried value's, or is a value from before the
  // loop whose variable holds its shares) given to that value (carry_in).
  void carry_at_head(const Phi& ph, const Lowering::Loop& l);
  // The value at the end of an iteration takes the carried cotangent t as its first
  // share: in its variable where the body reads it (its shares are summed there, and
  // a path that adds none leaves it there) or another variable refers to its; read
  // from the carried variable where only its own op's rule reads it.
  void carry_in(ir::ValueId second, const Tensor& t, const Lowering::Loop& l);
  // What a loop body's reverse named (from op `made` of the sweep on) is out of scope.
  void retire_since(std::size_t made);
  // v's cotangent, where it has one, in v's variable.
  void settle(ir::ValueId v);
  // From here v's cotangent is its variable, defined or not at run time (maybe): a
  // variable another refers to holds that one's shares too.
  Tensor variable(ir::ValueId v, bool maybe);

  // A tl::cond traced on a condition known at run time only is an `if` op, whose
  // engine rule runs where a result has a cotangent: each branch's reverse gives the
  // values it reads from outside their cotangents, zeros where it gave none, summed
  // apart (d_w_cond<id>) and added to theirs after it.
  void cond(const Node& s);

  // tl::fori_loop, tl::while_loop and tl::scan, loop ops when traced, whose engine
  // rule runs where a result has a cotangent: a reverse loop carries the carried
  // values' cotangents (zeros where none) and sums each iteration's shares of the
  // values the body reads from outside (d_w_sum<id>, from zeros), and both are added
  // to theirs after it; a scan's step output takes its step of its output's cotangent,
  // and its sequences the stack of their steps' slices' cotangents. An empty
  // tl::fori_loop records no loop: its result is its initial value.
  void structured_loop(const Node& s);
  // A tl:: loop's parts: its carried values and their cotangents after it (taken), a
  // scan's outputs with a cotangent, the slices whose cotangents are stacked, the
  // values from outside its body reads and their sums' names, and the test that a
  // result has a cotangent (`any`; `sure` where one has for certain).
  struct Structured {
    std::vector<const Phi*> carried;
    std::vector<Tensor> outs;
    std::vector<std::size_t> seeded;
    std::vector<bool> maybe_seed;
    std::vector<std::size_t> sequences;
    std::vector<ir::ValueId> free;
    std::map<ir::ValueId, std::string> sums;
    std::string any;
    bool sure = false;
  };
  Structured structured_parts(const Node& s);
  void structured_iterations(const Node& s, const Structured& r);
  void scan_seed(const Node& s, std::size_t i, bool maybe);
  void structured_after(const Node& s, const Structured& r);
  std::string carry_name(const Phi& ph);
  std::string steps_name(const Node& s, std::size_t i) const;
  // A value of the sweep standing for C++ text (a variable, an expression) of v's type.
  Tensor named(const std::string& text, ir::ValueId v);
  // A region's result has cotangent ct, held in d: the test that one has (`any`,
  // `d.defined() || ...`), and whether one has for certain (`sure`).
  void seeds(const Tensor& ct, const std::string& d, std::string& any, bool& sure);
  Expr zeros_of(ir::ValueId v);
  // ct, a cotangent of v (undefined: none), or zeros of v's type where it has none.
  Expr or_zeros(const Tensor& ct, ir::ValueId v);

  const Lowering::Alias* alias(ir::ValueId out, bool taken) const;

  State save() const { return {pass_.ct, maybe_, holds_}; }
  void restore(const State& s);
  // After two paths: each cotangent they left different is its variable, a value of
  // its own, defined or not at run time where one path left it without one.
  void join(const State& a, const State& b);

  // The sweep's ops from ops on, and the cotangents summed from shares on.
  void write_from(std::size_t ops, std::size_t shares);
  // A weak scalar written as its number beside its partner reads nothing; written
  // alone it reads its partner's dtype.
  void count_uses(const ir::Op& op, std::map<ir::ValueId, int>& uses) const;
  // The variable holding the cotangent of a value of the lowered body.
  std::string target_of(ir::ValueId fv) const;
  // v's cotangent's variable, declared in the innermost scope whose loop defines v.
  void declare(ir::ValueId v);
  void open_scope(const Node* loop);
  void close_scope();
  // The references of the values that are, where a condition holds, a value from
  // before them (Lowering::Alias), whose scope is `scope`: in the order of the
  // program, so that a reference's targets are declared before it (a value passed on
  // may be passed on again: y = x.astype(...), z = c ? y : ...).
  void declare_aliases(const Block* scope);
  // gv is the cotangent of each of xs so far: d = its op written out (d's previous
  // value among its operands; tested where it may be undefined), and from now on gv
  // is read as d.
  void assign(ir::ValueId gv, const std::vector<Share>& xs);
  // The comment before the first statement of op `by`'s rule (none for a share that
  // is no rule's).
  void note(const ir::Op* by);
  // Whether v's variable may hold shares this sweep does not see in it: an element
  // read at an index computed at run time (another read may be the same element), or
  // a variable that may refer to one that has been given a value (or be referred to by
  // one, through a chain of references).
  bool may_hold_others(ir::ValueId v) const;
  // d + share where d has a value, else the share.
  Expr maybe_sum(const std::string& d, ir::ValueId share);

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
  code::Builder code_;
  std::vector<Scope> scopes_;
  std::map<ir::ValueId, std::string>
      apart_;  // in a tl::cond's branch: its own variable for a value from outside
  std::set<std::string> declared_;
  std::set<ir::ValueId> maybe_;  // cotangents defined or not at run time
  // The variables that may refer to, or be referred to by, each variable
  std::map<std::string, std::set<std::string>> aliased_;
  std::map<std::string, ir::ValueId> holds_;  // d_x -> the value it holds now
  const ir::Op* commented_ = nullptr;
  int temps_ = 0;
};

}  // namespace tlaloc_grad
