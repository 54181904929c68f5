// The interpreter's plan of a module: for every op, its result types (when they
// are static) and which values die before or after it.
#pragma once

#include <deque>
#include <unordered_map>

#include "interp/fusion.hpp"
#include "ir/ir.hpp"

namespace tlaloc::interp {

struct FunctionPlan;

struct OpPlan {
  std::vector<TensorType> out_types;
  bool dynamic = false;                      // result types are computed when it runs
  const FunctionPlan* callee = nullptr;      // OpDef::Calls::one (`call`, `composite`)
  std::vector<const FunctionPlan*> processes;  // OpDef::Calls::parallel, row-major
  std::int64_t partitions = 1;                 // per row of `processes`
  std::vector<const FunctionPlan*> infeed;     // run_parallel's `infeed`: their results feed the processes
  std::shared_ptr<const FusionPlan> fusion;  // for `fusion`
  std::vector<ir::ValueId> release_before;   // last used as a plain operand
  std::vector<ir::ValueId> release_after;    // last used in a nested region, or never used
};

struct RegionPlan {
  std::vector<OpPlan> ops;  // parallel to the region's ops
  std::vector<ir::ValueId> unused_args;
  std::vector<ir::ValueId> local_results;  // results defined in the region itself
};

struct FunctionPlan {
  const ir::Function* f = nullptr;
  std::unordered_map<const ir::Region*, RegionPlan> regions;
  const RegionPlan& region(const ir::Region& r) const { return regions.at(&r); }
};

struct ModulePlan {
  std::deque<FunctionPlan> functions;  // stable addresses: calls point into it
  const FunctionPlan& function(const ir::Function& f) const;
};

ModulePlan plan_module(const ir::Module& m);

}  // namespace tlaloc::interp
