// The lowering of a generated function's body to IR of unknown types for the engine's
// sweep at build time (engine_sweep.hpp): the ops of every path, each recorded by the
// library's own public functions, or standing for a call the tool spells from its
// rules; one parameter per tensor the sweep reads; and what the printer needs to
// name the sweep's values after the program's.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine_writer.hpp"
#include "ir/builder.hpp"
#include "program.hpp"
#include "rules.hpp"

namespace tlaloc_grad {

namespace tl = tlaloc;
using tl::Tensor;

// The op standing for a custom rule's backward half called: a std::vector of
// cotangents, one per operand of the rule's function.
inline constexpr const char* kCustomCotangents = "tlaloc_grad.cotangents";

// Where the lowering stops, and what stopped it: the tool refuses the gradient.
struct NotYet {
  std::string what;
  Loc where{};  // the construct's place, where known
};

using Constants = std::map<std::string, std::string, std::less<>>;

// The body as IR of unknown types (engine_sweep.cpp drives the engine over it).
class Lowering {
 public:
  explicit Lowering(const Program& p) : p_(p), b_(f_), next_class_(int(p.params.size())) {}

  // f_: the body, its parameters the tensors it reads; each parameter's C++ name.
  void lower();

  const ir::Function& function() const { return f_; }
  const std::vector<bool>& wrt() const { return wrt_; }
  // For the parameters of f_ (by position): names, kinds and scalars.
  std::vector<Expr> names;
  std::vector<Kind> kinds;
  std::map<ir::ValueId, std::pair<std::string, ir::ValueId>>
      scalars;                                     // a scalar: its text, the tensor beside it
  std::map<ir::ValueId, ValueId> program_value;    // f_'s value -> the program's
  std::map<ir::ValueId, const Node*> node_of;      // f_'s op result -> its node
  std::map<std::size_t, ir::ValueId> param_value;  // a differentiated parameter's in f_
  // The differentiated lists, and the elements read from them (in f_'s order), each
  // with the variable its cotangent is (d_<list>[<index>]).
  std::vector<std::string> lists;
  std::vector<ir::ValueId> wrt_elements;
  std::map<ir::ValueId, std::string> target;
  // The elements whose shares are added in place, read from the variable: another
  // parameter may stand for the same element (read at an index computed at run time).
  std::set<ir::ValueId> in_place;
  std::map<const Node*, std::pair<std::size_t, std::size_t>> ops_of;  // an op node's ops in f_
  // The parameters standing for values that depend on what is differentiated: the
  // values after branches and loops, and the values a loop carries into an iteration.
  std::vector<ir::ValueId> joined;
  // A value that, where `cond` is `taken`, is the value `side` from before it: a
  // value after a branch on one path, a loop's result where it ran no iteration, a
  // carried value in the first iteration. The reference to side's cotangent is
  // declared in the reverse of `scope`, a loop's body or a tl::cond's branch (the
  // function's sweep: null), where cond can be read (and, in a tl::cond's branch,
  // side's cotangent is the branch's own).
  struct Alias {
    ir::ValueId out, side;
    std::string cond;
    bool taken;
    const Block* scope = nullptr;
  };
  std::vector<Alias> aliases;
  // A C++ loop (which tracing unrolls): the values its iterations define (the
  // carried values at their start included), the values from outside it that its
  // body reads (list elements included, wherever first read), and which values at
  // the end of an iteration the body reads too. For a tl::cond and a tl:: loop, what
  // they define, and what they read from outside in the program's order (an element
  // read inside is the region's own: its shares are added in place).
  struct Loop {
    std::set<ir::ValueId> own;
    std::vector<ir::ValueId> free;
    std::set<ir::ValueId> read;  // the carried values at the end of an iteration that the body reads
    // A carried value (its value after the loop) that an iteration may pass on
    // unchanged where its initial value is read elsewhere too, or that may be a value
    // from outside: the test that the value at the end of an iteration is such a value
    // itself, whose variable holds its shares then (Lowering::fresh_at_head).
    std::map<ir::ValueId, std::string> carried_unless;
    // A carried value that ends each iteration as another's value: no cotangent of its
    // own is carried to the iteration before (its shares are in the other's).
    std::set<ir::ValueId> uncarried;
  };
  std::map<const Node*, Loop> loops;
  std::set<ir::ValueId> passing;  // the results of calls that may return their operand (aliases)
  // The values a call records before its op (index_add's updates converted to x's
  // dtype), each named after the call's result and the operand it is: their
  // cotangents are d_<name>.
  std::map<ir::ValueId, std::string> inner;
  ir::ValueId value(ValueId v) { return b_.value_of(at_.at(v)); }
  // Whether v has a value here (not `tl::Tensor t;` before a path assigns it).
  bool lowered(ValueId v) const { return v >= 0 && at_.count(v) != 0; }

 private:
  Tensor param(const std::string& name, Kind kind, bool wrt = false);

  void node(const Node& s);

  // A C++ if: both paths' ops are recorded (each runs its rules only where its path
  // was taken), each value after the branch a parameter standing for the variable.
  void branch(const Node& s);
  // A C++ loop: its body's ops once, each carried value a parameter at the start of an
  // iteration and another after the loop.
  void loop(const Node& s);
  // tl::fori_loop, tl::while_loop and tl::scan (a loop op when traced): the body's ops
  // once, each carried value a parameter at the start of an iteration and another
  // after it, a scan's slices of its sequences parameters of each step, its stacked
  // outputs parameters after it.
  void structured_loop(const Node& s);
  // A tl::cond traced on a condition known at run time only (an `if` op): both paths'
  // ops, what they read from outside (loops[&s].free), and a parameter for each value
  // after it.
  void cond(const Node& s);
  // A parameter standing for v, a value a region joins or carries, or a tl::scan's
  // step (active, where v depends on what is differentiated).
  Tensor stands_for(ValueId v);
  // A region's own values: those f_ gained since it had `args` parameters and `ops`
  // ops (list elements, read from the list wherever first read, left out).
  void own_since(Loop& l, std::size_t args, std::size_t ops) const;
  // What a tl::cond or tl:: loop reads from outside (read_from_outside), in the
  // program's order (the order the tool's own sweep adds their sums in too).
  void free_of(Loop& l, const Node& s);
  // Each carried value's value at the end of an iteration has no cotangent yet where
  // the iteration's reverse starts (it is the iteration's own, or the value it
  // started with where that is so, on every path): what the next iteration gave it
  // comes first, as the unrolled trace sums it. Where it may be the initial value,
  // read elsewhere too, or a value from outside the loop, the carried value's
  // variables refer to that value's where they are that tensor (`s_in.is_same(a)`):
  // those values returned, by phi. Otherwise NotYet. The values a path passes on
  // without a reference to them (unaliased_ from `unaliased` on) count too.
  // Two carried values that end an iteration as one value: the later phi -> the
  // earlier, in `same`.
  std::map<const Phi*, std::vector<ValueId>> fresh_at_head(const Node& s, const Loop& l,
                                                           std::size_t unaliased,
                                                           std::map<const Phi*, const Phi*>& same);
  // The references of ph's value at the head of an iteration to `roots`' variables,
  // inserted at `at` in `aliases` (after its initial value's).
  void identify(const Node& s, const Phi& ph, const std::vector<ValueId>& roots, std::size_t at);
  // A loop's results: a parameter for each value after it, whose variable refers to
  // the initial value's where the loop ran no iteration, and to `roots`' where it is
  // one of them; the test that the value at the end of an iteration is one of them
  // (Loop::carried_unless).
  void results(const Node& s, const std::map<const Phi*, std::vector<ValueId>>& roots,
               const std::map<const Phi*, const Phi*>& same, Loop& l);
  // `a.is_same(b)`, of the program's values, each written by its name, or a list's
  // element as read from the list (`ps[0]`).
  std::string is_same(ValueId a, ValueId b);
  std::string text_of(ValueId v);
  // Inserts as at `at` in `aliases`, where their references are declared in order.
  void insert_aliases(std::size_t at, const std::vector<Alias>& as);
  // A value after a branch that is, on a path, a value whose variable may refer to
  // another's holding shares of its own (a loop's carried value, by fresh_at_head)
  // refers to it too: the shares of both sum in one variable, as tracing sums them.
  // `referring`: such values; the unaliased branch values from `from` on are looked at.
  void refer_through(std::set<ir::ValueId> referring, std::size_t from);
  const Block* scope() const { return regions_.empty() ? nullptr : regions_.back(); }
  static bool defines(const Block& b, ValueId v);
  // `const T name = init;` (axes, keepdims in an inlined library function): the
  // initializer stands for the name where a reduction reads it.
  void constant(const Node& s);

  // An element of a list parameter read as a tensor: a parameter of f_, one for each
  // element however often it is read (traced, each read is the argument itself), its
  // cotangent the list's cotangent's element.
  void element(const Node& s, const Value& v);

  Tensor operand(const Arg& a);

  Tensor record(const Node& s);

  // A function that records registry op `def` alone (OpDef::called_as): the op on its
  // tensors, each further argument its attribute as written (tl::detail::Written).
  Tensor called_op(const tl::detail::OpDef& def, const Node& s);
  // y, the result of op node s, noted as possibly its operand itself (may_pass_on).
  Tensor passed_on(const Node& s, const Tensor& y);

  const Program& p_;
  ir::Function f_;
  ir::Builder b_;
  std::map<ValueId, Tensor> at_;
  std::vector<bool> wrt_;
  std::map<std::string, Tensor> elements_;
  std::set<ir::ValueId> element_params_;
  std::set<std::string> read_at_run_time_;  // lists read at an index computed at run time
  void lists_read_at_run_time(const Block& b);
  // The loops' bodies and tl::conds' branches around the node being lowered
  std::vector<const Block*> regions_;
  // The values after a branch that do not refer to the value a path passes on (read
  // nowhere else), with where in `aliases` their reference would go.
  std::vector<std::pair<std::size_t, Alias>> unaliased_;
  Constants constants_;
  std::map<ValueId, int> uses_, sides_;  // the program's reads of each value; as a branch's side
  int next_class_;                       // the type class of the next parameter not of the function's
};

}  // namespace tlaloc_grad
