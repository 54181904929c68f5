// Tlaloc's IR: SSA functions over typed tensor values. Ops are the registry's
// OpDefs (src/ops), so an IR op and an eager call share shape rule and kernel.
//
// A Function owns one table of values; regions (loop bodies, branches, reduce
// bodies) are single blocks whose ops may use any value defined before them in an
// enclosing region, as in StableHLO.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/op.hpp"

namespace tlaloc::ir {

using detail::Attrs;
using detail::OpDef;
using detail::TensorType;
using detail::token_type;

// A dimension whose size is known only at run time (`?` in text).
inline constexpr std::int64_t kDynamic = -1;
bool is_static(const TensorType& t);
std::string type_string(const TensorType& t);  // "f32[2,?,3]"; "?" when the type is unknown

using ValueId = std::int32_t;

// Where an op came from in a parsed file (line and column from 1); 0 when built.
struct Location {
  int line = 0;
  int col = 0;
};

struct Op;

struct Region {
  std::vector<ValueId> args;
  std::vector<Op> ops;
  std::vector<ValueId> results;  // what the region returns
};

struct Op {
  const OpDef* def = nullptr;
  std::vector<ValueId> operands;
  std::vector<ValueId> results;
  Attrs attrs;
  std::vector<Region> regions;
  Location loc;
  const std::string& name() const { return def->name(); }
};

class Function {
 public:
  std::string name = "main";
  bool is_public = true;
  Region body;  // args are the parameters, results the returned values

  ValueId add_value(TensorType t);
  const TensorType& type(ValueId v) const { return types_.at(std::size_t(v)); }
  std::size_t num_values() const { return types_.size(); }
  std::vector<TensorType> param_types() const;
  std::vector<TensorType> result_types() const;

 private:
  std::vector<TensorType> types_;
};

struct Module {
  std::vector<Function> functions;
  // The process grid the entry runs on as an SPMD program (mhlo.num_replicas and
  // mhlo.num_partitions): each process runs it on the whole arguments.
  std::int64_t num_replicas = 1;
  std::int64_t num_partitions = 1;
  const Function* find(std::string_view name) const;
  // The entry point: `name`, or else `main`, or else the only public function.
  const Function& entry(std::string_view name = {}) const;
};

// The op a region applies to its two arguments when that is all it does
// (`add` for a sum's body); empty otherwise. Commutative ops match either order.
std::string_view binary_body(const Region& r);

// The values an op's regions use without defining them (captured from enclosing
// regions), in order of first use.
std::vector<ValueId> free_values(const Op& op);

// The readable dump: one op per line, `%3 = add(%1, %2) : f32[2,3]`, attributes
// in braces, regions indented.
std::string to_string(const Function& f);
std::string to_string(const Module& m);

// Checks SSA form (every use after its definition, in scope), operand counts, region
// counts, and that each op's result types follow its shape rule. Throws
// tlaloc::Error naming the function, the op, its location and the problem.
void verify(const Function& f, const Module* m = nullptr);
void verify(const Module& m);

}  // namespace tlaloc::ir
