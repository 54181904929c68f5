#include "interp/plan.hpp"

#include <algorithm>
#include <unordered_set>

#include "core/check.hpp"

namespace tlaloc::interp {
namespace {

using ir::Op;
using ir::Region;
using ir::ValueId;

void collect_uses(const Region& r, std::unordered_set<ValueId>& out) {
  for (const Op& op : r.ops) {
    out.insert(op.operands.begin(), op.operands.end());
    for (const Region& inner : op.regions) collect_uses(inner, out);
  }
  out.insert(r.results.begin(), r.results.end());
}

class Planner {
 public:
  Planner(const ModulePlan& mp, const ir::Module& m, FunctionPlan& fp) : mp_(mp), m_(m), fp_(fp) {}

  void region(const Region& r) {
    RegionPlan& rp = fp_.regions[&r];
    std::unordered_set<ValueId> here(r.args.begin(), r.args.end());
    for (const Op& op : r.ops) here.insert(op.results.begin(), op.results.end());
    const std::unordered_set<ValueId> results(r.results.begin(), r.results.end());
    for (ValueId v : r.results)
      if (here.count(v)) rp.local_results.push_back(v);

    // The last op of this region that uses each value defined here.
    std::unordered_map<ValueId, std::size_t> last;
    std::vector<std::unordered_set<ValueId>> nested(r.ops.size());
    for (std::size_t i = 0; i < r.ops.size(); ++i) {
      for (ValueId v : r.ops[i].operands) last[v] = i;
      for (const Region& inner : r.ops[i].regions) collect_uses(inner, nested[i]);
      for (ValueId v : nested[i]) last[v] = i;
    }
    for (ValueId v : r.args)
      if (!last.count(v) && !results.count(v)) rp.unused_args.push_back(v);

    rp.ops.resize(r.ops.size());
    for (std::size_t i = 0; i < r.ops.size(); ++i) {
      const Op& op = r.ops[i];
      OpPlan& p = rp.ops[i];
      for (ValueId v : op.operands) {
        if (!here.count(v) || results.count(v) || last[v] != i || nested[i].count(v)) continue;
        if (std::find(p.release_before.begin(), p.release_before.end(), v) == p.release_before.end())
          p.release_before.push_back(v);
      }
      for (ValueId v : nested[i])
        if (here.count(v) && !results.count(v) && last[v] == i) p.release_after.push_back(v);
      for (ValueId v : op.results)
        if (!last.count(v) && !results.count(v)) p.release_after.push_back(v);
      types(op, p);
      for (const Region& inner : op.regions) region(inner);
    }
  }

 private:
  void types(const Op& op, OpPlan& p) {
    for (ValueId v : op.results) {
      p.out_types.push_back(fp_.f->type(v));
      if (!ir::is_static(p.out_types.back())) p.dynamic = true;
    }
    // Operands of unknown shape: the shape rule sees their real shapes at run time
    // (and checks them) even when the declared results are static.
    for (ValueId v : op.operands)
      if (!ir::is_static(fp_.f->type(v)) && op.def->has_shape_rule()) p.dynamic = true;
    // An op with regions and no shape rule (while_stacked) sizes its results itself.
    if (p.dynamic && !op.def->has_shape_rule() && op.regions.empty())
      detail::fail(op.name(), "has results of unknown shape and no shape rule to compute them");
    if (!op.def->has_shape_rule()) p.dynamic = false;
    if (is_fusion(op)) p.fusion = std::make_shared<FusionPlan>(*fp_.f, op);
    if (op.def->calls() == ir::OpDef::Calls::one) {
      p.callee = &function(op, op.attrs.get<std::string>(op.def->calls_attr()));
    } else if (op.def->calls() == ir::OpDef::Calls::parallel) {
      for (const std::string& name : op.attrs.get<std::vector<std::string>>(op.def->calls_attr()))
        p.processes.push_back(&function(op, name));
      p.partitions = op.attrs.get<std::int64_t>(op.def->calls_attr() + ".partitions");
      if (op.attrs.has("infeed"))  // interpreter.run_parallel's host queue (ops/collective.cpp)
        for (const std::string& name : op.attrs.get<std::vector<std::string>>("infeed"))
          p.infeed.push_back(&function(op, name));
    }
  }

  const FunctionPlan& function(const Op& op, const std::string& name) const {
    const ir::Function* g = m_.find(name);
    if (g == nullptr) detail::fail(op.name(), "@{} is not defined in the module", name);
    return mp_.function(*g);
  }

  const ModulePlan& mp_;
  const ir::Module& m_;
  FunctionPlan& fp_;
};

}  // namespace

const FunctionPlan& ModulePlan::function(const ir::Function& f) const {
  for (const FunctionPlan& fp : functions)
    if (fp.f == &f) return fp;
  throw Error("the interpreter has no plan for @" + f.name);
}

ModulePlan plan_module(const ir::Module& m) {
  ModulePlan mp;
  for (const ir::Function& f : m.functions) mp.functions.push_back(FunctionPlan{&f, {}});
  for (FunctionPlan& fp : mp.functions) Planner(mp, m, fp).region(fp.f->body);
  return mp;
}

}  // namespace tlaloc::interp
