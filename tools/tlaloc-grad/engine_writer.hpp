// A recording of the AD engine made at build time (values of unknown type, named by
// the generated function's variables), written back as C++ expressions over the
// public API: each recorded op by its own spelling (OpDef::cpp), as an expression
// of the code model, which writes the parentheses C++'s grammar needs and no more. Used by engine_rules.cpp
// (one rule at a time) and engine_sweep.cpp (the engine's reverse sweep of a whole body).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "cppgen/code.hpp"
#include "ir/ir.hpp"

namespace tlaloc_grad {

namespace ir = tlaloc::ir;

// An expression of the generated code (src/cppgen/code.hpp): its printer knows how
// tightly each part binds.
using Expr = tlaloc::cppgen::Expr;

// What is known at build time of a value's type: which shape it has and which
// dtype, each a class numbered by whoever names the values (shape 0: rank 0), or
// unknown. sum_to_shape_of and broadcast_to_shape_of of a value already of the
// other's type return it, and so does a conversion to its own dtype, so they are
// written as the value.
struct Kind {
  std::optional<int> shape, dtype;
  bool known() const { return shape && dtype; }
  bool operator==(const Kind&) const = default;
};
// The kind of a tensor of type class c, and of a rank-0 value of c's dtype.
inline Kind of_class(int c) { return {c + 1, c}; }
inline Kind scalar_of_class(int c) { return {0, c}; }

class Recording {
 public:
  // names: values written by a name; kinds: what is known of named values' types;
  // scalars: a scalar operand's text and the tensor beside it; y: the value whose
  // dtype a scalar standing alone takes (empty: its partner's); alike: values of
  // another's type (a seed, of its result's).
  Recording(const ir::Function& f, std::map<ir::ValueId, Expr> names, std::map<ir::ValueId, Kind> kinds,
            std::map<ir::ValueId, std::pair<std::string, ir::ValueId>> scalars, std::string y,
            std::map<ir::ValueId, ir::ValueId> alike = {});

  // v as one expression: its name, or its op's spelling with its operands written in.
  Expr write(ir::ValueId v);
  // v's defining op written out even where v has a name.
  Expr define(ir::ValueId v);
  // so_far + share, as the engine adds a share to a cotangent; a share whose op adds
  // its parts to what the cotangent holds (OpDef::adds_parts_to_so_far) is written
  // as its call given so_far as its last argument.
  Expr sum(const Expr& so_far, ir::ValueId share);
  // From now on v is written as `name`.
  void name(ir::ValueId v, const std::string& name) {
    names_[v] = Expr::text(name);
    retired_.erase(v);
  }
  // v has w's type.
  void alike(ir::ValueId v, ir::ValueId w) { alike_[v] = w; }
  // Takes in the ops recorded since (the function grows as a sweep is recorded).
  void update();
  // v's name now holds another value: writing v is refused (a std::logic_error).
  void retire(ir::ValueId v);
  bool named(ir::ValueId v) const { return names_.count(v) != 0; }
  // What is known of v's type; a scalar without a kind of its own has rank 0 and its
  // partner's dtype.
  Kind kind(ir::ValueId v) const;
  const ir::Op* made_by(ir::ValueId v) const;

 private:
  Expr side(const ir::Op& op, std::size_t k);
  Expr spelled(const ir::Op& op);
  bool adds_itself(ir::ValueId v) const;
  Kind kind_of(const ir::Op& op) const;
  Kind derived_kind(const ir::Op& op, int own) const;
  bool same_as(ir::ValueId a, ir::ValueId b) const;
  bool same_as_first(const ir::Op& op) const;

  const ir::Function& f_;
  std::map<ir::ValueId, Expr> names_;
  std::map<ir::ValueId, Kind> kinds_;
  std::map<ir::ValueId, std::pair<std::string, ir::ValueId>> scalars_;
  std::string y_;
  std::map<ir::ValueId, ir::ValueId> alike_;
  std::map<ir::ValueId, std::size_t> made_by_;  // the index of the op making a value
  std::size_t seen_ = 0;                        // the ops taken in
  std::set<ir::ValueId> retired_;
};

}  // namespace tlaloc_grad
