// What tlaloc-grad lowers a differentiated function's body to: a structured program
// of tensor ops (each a public tlaloc function or operator), scalar statements copied
// as written, branches and loops. Shapes stay unknown until run time: every rule
// reads them from the tensors (`x.shape()`), as the AD engine's rules do.
#pragma once

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tlaloc::cppgen {}

namespace tlaloc_grad {

// The code model the generated C++ is built in (src/cppgen/code.hpp).
namespace code = tlaloc::cppgen;

// Where a construct is in the user's file (line and column from 1).
struct Loc {
  std::string file;
  unsigned line = 0, col = 0;
};

// The diagnostic codes a build can fail with (docs/BUILD_TIME_GRADIENTS.md).
enum class Code { not_differentiable, unsupported_construct, shape_mismatch };
std::string_view code_name(Code c);

// A refusal: printed as `file:line:col: error: [CODE] message`, and the build fails.
struct Diagnostic : std::runtime_error {
  Diagnostic(Code c, Loc l, const std::string& message) : std::runtime_error(message), code(c), loc(std::move(l)) {}
  Code code;
  Loc loc;
};
[[noreturn]] void refuse(Code c, const Loc& where, const std::string& message);

using ValueId = int;

// An op's argument: a tensor value, or C++ text (a scalar, axes, a shape) whose
// names already refer to the generated function's variables.
struct Arg {
  ValueId value = -1;
  std::string text;
  bool is_tensor() const { return value >= 0; }
};

struct Node;
using Block = std::vector<Node>;

struct Phi {
  ValueId out = -1;            // the value after the branch or loop
  ValueId in = -1;             // loops: the carried value at the start of an iteration
  ValueId first = -1;          // branch: the `then` value; loop: the initial value
  ValueId second = -1;         // branch: the `else` value; loop: the value at the end of the body
};

struct Node {
  enum class Kind { op, scalar, branch, loop } kind = Kind::op;
  Loc loc;
  std::string source;          // the user's text, for a comment
  // op: result = rule `fn` applied to args; `text` spells an op with no rule
  // (a call none of whose tensor arguments is differentiated).
  std::string fn;
  std::vector<Arg> args;
  ValueId result = -1;
  // scalar: a statement copied as written (names substituted); branch and loop: the
  // condition; loop: its init and step (empty for while).
  std::string text, init, step;
  std::string callee;  // op "custom" (and a custom rule's half): the tl::CustomFunction called
  // op: the namespace of fn's function as written (tl::derivatives:: for a derivative helper)
  std::string space = "tl::";
  // tl::hessian's second lowering (lower_tapes.cpp): a vector of tensors (or of such
  // vectors): a statement on it (scalar: `text`, and `init` for the tangents' tape),
  // a tensor pushed onto it (scalar, one arg), or read (op, `text` the element). A
  // custom rule's half fills one (scalar, `callee` set: `fn` "forward" or "backward",
  // `init` the type of the list it declares, `text` the forward half a backward reads).
  std::string list;
  // branch and loop: the tl:: function they come from (tl::cond, tl::fori_loop,
  // tl::while_loop), whose engine rule orders the sums of cotangents; empty for C++'s
  // own if and loops, which the trace unrolls.
  std::string structured;
  Block head;                  // tl::while_loop: the ops computing its condition
  // C++ loops: `if (c) break;` as the body's first or last statement, its condition
  std::string break_before, break_after;
  // tl::scan: the sequences (one, or a std::vector's elements), each step's slice of
  // each (an op "scan_slice" in the body, whose text names the step's index), the
  // step's outputs (one, or a std::vector's elements), and each output stacked after
  // it; the C++ names of the step count and of the index in the sequences.
  std::vector<ValueId> xs, x, y, ys;
  std::string count, index;
  bool assignment = false;     // scalar: `n += 1;`, a variable the loop carries, changed
  bool check = false;          // scalar: `if (c) throw E;`, run by the forward pass only
  std::string declares;        // scalar: the name it declares, if any
  // scalar: the type of `declares` where the statement only assigns it, the variable
  // being declared before the outermost branch around it (a loop's final value
  // inside a branch, which the reverse sweep must not compute again)
  std::string hoisted;
  int id = 0;                  // branch and loop: a number for their saved conditions and counters
  Block body, orelse;
  std::vector<Phi> phis;
  // loop: the scalars the loop and its body declare, saved per iteration (name, type)
  std::vector<std::pair<std::string, std::string>> scalars;
  // loop: the final values of scalars that loops in its body change, read later in
  // the body (name, type), saved at the end of each iteration
  std::vector<std::pair<std::string, std::string>> kept;
};

// Adds how often each value is read in b and the blocks inside it (an op's operand,
// a branch's or a loop's side, a tl::scan's sequence; the function's result is the
// caller's to add) to `reads`, and how often as a side alone to `sides`, if given.
inline void count_reads(const Block& b, std::map<ValueId, int>& reads,
                        std::map<ValueId, int>* sides = nullptr) {
  for (const Node& s : b) {
    for (const Arg& a : s.args)
      if (a.is_tensor()) ++reads[a.value];
    for (const Phi& ph : s.phis)
      for (ValueId v : {ph.first, ph.second})
        if (v >= 0) {
          ++reads[v];
          if (sides != nullptr) ++(*sides)[v];
        }
    for (ValueId v : s.xs) ++reads[v];
    count_reads(s.head, reads, sides);
    count_reads(s.body, reads, sides);
    count_reads(s.orelse, reads, sides);
  }
}

// The values node s's blocks read that are defined before it: the free values of the
// op it is when traced (a branch's sides and a loop's value at the end of an
// iteration among them; a tl::scan's sequences, which its steps' slices read, not).
inline void reads_and_defines(const Block& b, std::set<ValueId>& read, std::set<ValueId>& defined,
                              const std::vector<ValueId>& own_slices = {}) {
  for (const Node& n : b) {
    for (const Arg& a : n.args)
      if (a.is_tensor() && std::find(own_slices.begin(), own_slices.end(), n.result) == own_slices.end())
        read.insert(a.value);
    defined.insert(n.ys.begin(), n.ys.end());
    defined.insert(n.result);
    for (const Phi& ph : n.phis) {
      defined.insert({ph.out, ph.in});
      read.insert({ph.first, ph.second});
    }
    reads_and_defines(n.body, read, defined);
    reads_and_defines(n.orelse, read, defined);
  }
}
inline std::set<ValueId> read_from_outside(const Node& s) {
  std::set<ValueId> read, defined, free;
  for (const Phi& ph : s.phis) {
    defined.insert(ph.in);
    read.insert(ph.second);
    if (s.kind == Node::Kind::branch) read.insert(ph.first);
  }
  reads_and_defines(s.body, read, defined, s.x);
  reads_and_defines(s.orelse, read, defined, s.x);
  for (ValueId v : read)
    if (v >= 0 && defined.count(v) == 0) free.insert(v);
  return free;
}

// The generated variable holding branch `id`'s condition (saved per iteration in loops
// as saved_cond_<id>).
inline std::string cond_name(int id) { return "cond_" + std::to_string(id); }

struct Value {
  std::string name;
  bool active = false;         // depends on the differentiated parameter
  bool traced = false;         // depends on a parameter: symbolic when tl::grad traces
  bool undefined = false;      // `tl::Tensor t;` before its first assignment: no value, no tangent
  bool maybe_undefined = false;  // joins an undefined value (after a branch or loop that may not assign it)
  // An element of a list parameter (`ps[i]`): the list's name and the index, a literal
  // or the scalar holding it. Its cotangent is the list's cotangent's element there.
  std::string list, at;
};

struct Param {
  std::string type;            // as written in the generated signature
  std::string name;
  ValueId value = -1;          // -1: not a tensor
  std::string outer;           // its name where the transform is called (captures)
  bool list = false;           // a std::vector<tl::Tensor>, read by element
  bool named = false;          // a list that is a tl::nn::Params, read by name
  // Its element k, as generated code reads it.
  std::string element(const std::string& k) const {
    return named ? name + ".entries()[" + k + "].second" : name + "[" + k + "]";
  }
};

struct Program {
  std::string name;            // the generated function's name
  std::string what;            // "the lambda at file:12:14", for comments
  Loc loc;
  std::vector<Value> values;
  std::vector<Param> params;   // the function's parameters, then what it captures
  std::size_t explicit_params = 0;
  std::vector<std::size_t> wrt;  // the differentiated parameters (tl::jvp: one)
  bool listed = false;           // gradients as a std::vector (tl::argnums)
  std::set<std::string> active_lists;  // lists (Node::list) holding active tensors
  // The library's headers whose functions were inlined ("tlaloc/nn/losses.hpp"): the
  // generated file includes them, as its text may name what they declare.
  std::set<std::string> headers;
  Block body;
  ValueId result = -1;
  ValueId add_value(std::string value_name, bool is_active, bool is_traced) {
    values.push_back({std::move(value_name), is_active, is_traced || is_active});
    return ValueId(values.size() - 1);
  }
};

}  // namespace tlaloc_grad
