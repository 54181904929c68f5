#include "interp/interpreter.hpp"

#include <fmt/format.h>

#include <unordered_map>

#include "core/check.hpp"
#include "interp/fusion.hpp"
#include "interp/parallel.hpp"
#include "interp/plan.hpp"
#include "ops/custom_call.hpp"
#include "ops/host_queue.hpp"

namespace tlaloc::interp {
namespace {

using ir::Function;
using ir::Op;
using ir::Region;
using ir::ValueId;

class Frame;

std::string types_text(std::span<const TensorType> ts) {
  std::string s;
  for (const TensorType& t : ts) {
    if (!s.empty()) s += ", ";
    s += ir::type_string(t);
  }
  return s;
}

// Types computed at run time against the declared ones, which may have `?` dims.
void check_declared(const Op& op, std::span<const TensorType> got, std::span<const TensorType> want) {
  bool ok = got.size() == want.size();
  for (std::size_t i = 0; ok && i < got.size(); ++i) {
    ok = got[i].dtype == want[i].dtype && got[i].shape.size() == want[i].shape.size();
    for (std::size_t d = 0; ok && d < got[i].shape.size(); ++d)
      ok = want[i].shape[d] == ir::kDynamic || got[i].shape[d] == ir::kDynamic ||
           got[i].shape[d] == want[i].shape[d];
  }
  if (ok) return;
  detail::fail<ShapeError>(op.name(), "gives {} at run time where the program declares {}", types_text(got),
                           types_text(want));
}

thread_local ir::Location failure_location;
thread_local bool failure_recorded = false;

std::vector<Tensor> run_function(const ModulePlan& mp, const FunctionPlan& fp, std::span<const Tensor> args);
std::vector<Tensor> run_parallel(const ModulePlan& mp, const Op& op, const OpPlan& plan,
                                 std::span<const Tensor> in);

// The environment of one function invocation; regions share it.
class Frame final : public detail::RegionCalls {
 public:
  Frame(const ModulePlan& mp, const FunctionPlan& fp) : mp_(mp), fp_(fp), env_(fp.f->num_values()) {}

  std::vector<Tensor> run_region(const Region& r, std::span<const Tensor> args) {
    const RegionPlan& rp = fp_.region(r);
    for (std::size_t i = 0; i < r.args.size(); ++i) env_[std::size_t(r.args[i])] = args[i];
    for (ValueId v : rp.unused_args) env_[std::size_t(v)] = Tensor();
    for (std::size_t i = 0; i < r.ops.size(); ++i) run_op(r.ops[i], rp.ops[i]);
    std::vector<Tensor> out;
    out.reserve(r.results.size());
    for (ValueId v : r.results) out.push_back(env_[std::size_t(v)]);
    for (ValueId v : rp.local_results) env_[std::size_t(v)] = Tensor();
    return out;
  }

  // RegionCalls, for the op being run.
  std::size_t size() const override { return current_->regions.size(); }
  std::vector<Tensor> call(std::size_t region, std::span<const Tensor> args) const override {
    const Op* op = current_;
    const Region& r = op->regions.at(region);
    if (args.size() != r.args.size())
      detail::fail(op->name(), "region {} takes {} arguments, got {}", region, r.args.size(), args.size());
    auto* self = const_cast<Frame*>(this);
    std::vector<Tensor> out = self->run_region(r, args);
    self->current_ = op;  // nested ops moved it
    return out;
  }
  // Each process runs a copy of this frame: the values the region captures are shared
  // (read only), the values it defines are its own.
  std::vector<std::vector<Tensor>> call_as_processes(std::size_t region,
                                                     std::span<const std::vector<Tensor>> args,
                                                     const std::vector<bool>& same) const override {
    const Op* op = current_;
    const Region& r = op->regions.at(region);
    for (const std::vector<Tensor>& a : args)
      if (a.size() != r.args.size())
        detail::fail(op->name(), "region {} takes {} arguments, got {}", region, r.args.size(), a.size());
    if (detail::Processes* world = detail::distributed_world();
        world != nullptr && world->num_partitions() > 1)
      return call_in_world(*world, r, args, same);
    return run_processes(
        1, std::int64_t(args.size()),
        [&](std::int64_t i) {
          Frame copy(*this);
          return copy.run_region(r, args[std::size_t(i)]);
        },
        op->name());
  }
  // Across the processes of a distributed job, one device each: this process runs its
  // own, and every process gets every device's results but those the same on all.
  std::vector<std::vector<Tensor>> call_in_world(detail::Processes& world, const Region& r,
                                                 std::span<const std::vector<Tensor>> args,
                                                 const std::vector<bool>& same) const {
    const Op* op = current_;
    if (std::int64_t(args.size()) != world.num_partitions())
      detail::fail(op->name(),
                   "runs {} devices in a job of {} processes: a mesh across processes has one device "
                   "per process",
                   args.size(), world.num_partitions());
    std::vector<Tensor> mine;
    {
      const detail::ProcessScope scope(world);
      Frame copy(*this);
      mine = copy.run_region(r, args[std::size_t(world.self())]);
    }
    std::vector<detail::ProcessIndex> everyone(args.size());
    for (std::size_t d = 0; d < everyone.size(); ++d) everyone[d] = detail::ProcessIndex(d);
    std::vector<std::vector<Tensor>> results(args.size(), std::vector<Tensor>(mine.size()));
    for (std::size_t j = 0; j < mine.size(); ++j) {
      if (j < same.size() && same[j]) {
        results[0][j] = mine[j];
        continue;
      }
      const std::vector<Tensor> all = world.exchange(op->name(), everyone, mine[j]);
      for (std::size_t d = 0; d < all.size(); ++d) results[d][j] = all[d];
    }
    return results;
  }
  std::string_view binary_body(std::size_t region) const override {
    return ir::binary_body(current_->regions.at(region));
  }
  PairOp first_pair_op(std::size_t region) const override {
    const Region& r = current_->regions.at(region);
    if (r.args.size() < 2 || r.ops.size() != 1 || r.results.size() != 1) return {};
    const Op& op = r.ops[0];
    if (op.results.size() != 1 || op.results[0] != r.results[0] || op.operands.size() != 2 ||
        op.operands[0] != r.args[0] || op.operands[1] != r.args[1])
      return {};
    return {op.name(), &op.attrs};
  }

 private:
  void run_op(const Op& op, const OpPlan& plan) {
    std::vector<Tensor> in;
    in.reserve(op.operands.size());
    for (ValueId v : op.operands) in.push_back(env_[std::size_t(v)]);
    // The last reference goes to the kernel (it may then reuse the buffer).
    for (ValueId v : plan.release_before) env_[std::size_t(v)] = Tensor();
    std::vector<TensorType> dyn_types;
    std::span<const TensorType> types = plan.out_types;
    if (plan.dynamic) {
      std::vector<TensorType> in_types;
      for (const Tensor& t : in) in_types.push_back(detail::type_of(t));
      dyn_types = op.def->infer(in_types, op.attrs);
      check_declared(op, dyn_types, plan.out_types);
      types = dyn_types;
    }
    std::vector<Tensor> out;
    if (plan.callee != nullptr) {
      out = run_function(mp_, *plan.callee, in);
    } else if (!plan.processes.empty()) {
      out = run_parallel(mp_, op, plan, in);
    } else if (plan.fusion != nullptr) {
      out = plan.fusion->run(in);
    } else {
      const Op* saved = current_;
      current_ = &op;
      try {
        out = op.def->run(in, op.attrs, types, *this);
      } catch (...) {
        if (!failure_recorded) failure_location = op.loc, failure_recorded = true;  // the innermost op
        throw;
      }
      current_ = saved;
    }
    in.clear();
    if (out.size() != op.results.size())
      detail::fail(op.name(), "returned {} values where the program expects {}", out.size(),
                   op.results.size());
    for (std::size_t i = 0; i < out.size(); ++i) env_[std::size_t(op.results[i])] = std::move(out[i]);
    for (ValueId v : plan.release_after) env_[std::size_t(v)] = Tensor();
  }

  const ModulePlan& mp_;
  const FunctionPlan& fp_;
  std::vector<Tensor> env_;
  const Op* current_ = nullptr;
};

void check_args(const Function& f, std::span<const Tensor> args) {
  if (args.size() != f.body.args.size())
    throw ValueError(fmt::format("@{} takes {} arguments, got {}", f.name, f.body.args.size(), args.size()));
  for (std::size_t i = 0; i < args.size(); ++i) {
    const TensorType& want = f.type(f.body.args[i]);
    if (!args[i].defined()) throw ValueError(fmt::format("@{}: argument {} is undefined", f.name, i));
    bool ok = args[i].dtype() == want.dtype && args[i].shape().size() == want.shape.size();
    for (std::size_t d = 0; ok && d < want.shape.size(); ++d)
      ok = want.shape[d] == ir::kDynamic || want.shape[d] == args[i].shape()[d];
    if (!ok)
      throw ShapeError(fmt::format("@{}: argument {} has type {}, the function takes {}", f.name, i,
                                   ir::type_string(detail::type_of(args[i])), ir::type_string(want)));
    if (args[i].is_symbolic()) throw ValueError(fmt::format("@{}: argument {} is symbolic", f.name, i));
  }
}

std::vector<Tensor> run_function(const ModulePlan& mp, const FunctionPlan& fp, std::span<const Tensor> args) {
  check_args(*fp.f, args);
  Frame frame(mp, fp);
  return frame.run_region(fp.f->body, args);
}

// Each process takes its function's arguments from the operands in process order;
// the results are each process's, in the same order.
std::vector<Tensor> run_parallel(const ModulePlan& mp, const Op& op, const OpPlan& plan,
                                 std::span<const Tensor> in) {
  const std::size_t n = plan.processes.size();
  const auto partitions = std::size_t(plan.partitions);
  if (partitions == 0 || n % partitions != 0)
    detail::fail(op.name(), "{} programs do not fill rows of {} partitions", n, partitions);
  std::vector<std::size_t> first{0};  // ir::verify checked that the operands fill the parameters
  for (const FunctionPlan* p : plan.processes) first.push_back(first.back() + p->f->body.args.size());
  // The processes take their infeed from the functions `infeed` names, else from the caller's queue.
  detail::HostQueue fed;
  for (const FunctionPlan* f : plan.infeed) fed.push_infeed(run_function(mp, *f, {}));
  detail::HostQueue* queue = plan.infeed.empty() ? detail::current_host_queue() : &fed;
  const std::vector<std::vector<Tensor>> results = run_processes(
      std::int64_t(n / partitions), std::int64_t(partitions),
      [&](std::int64_t i) {
        const detail::HostQueueScope scope(queue);
        const auto k = std::size_t(i);
        return run_function(mp, *plan.processes[k], in.subspan(first[k], first[k + 1] - first[k]));
      },
      op.name());
  std::vector<Tensor> out;
  for (const std::vector<Tensor>& r : results) out.insert(out.end(), r.begin(), r.end());
  return out;
}

}  // namespace

struct Program::Impl {
  ir::Module module;
  ModulePlan plan;
  const FunctionPlan* entry = nullptr;
  detail::HostQueue* host_queue = nullptr;
  // The queue the program's processes use: its own, else the one of the thread running it.
  detail::HostQueue* queue() const {
    return host_queue != nullptr ? host_queue : detail::current_host_queue();
  }
};

Program::Program(ir::Module m, std::string_view entry, const Options& options)
    : impl_(std::make_unique<Impl>()) {
  ir::verify(m);
  detail::refuse_unknown_targets(m);
  if (options.fuse)
    for (ir::Function& f : m.functions) f = fuse(f);
  impl_->module = std::move(m);
  impl_->host_queue = options.host_queue;
  impl_->plan = plan_module(impl_->module);
  impl_->entry = &impl_->plan.function(impl_->module.entry(entry));
}

Program::Program(ir::Function f, const Options& options) {
  ir::Module m;
  m.functions.push_back(std::move(f));
  *this = Program(std::move(m), {}, options);
}

Program::~Program() = default;
Program::Program(Program&&) noexcept = default;
Program& Program::operator=(Program&&) noexcept = default;

ir::Location last_failure_location() { return failure_location; }

std::vector<Tensor> Program::run(std::span<const Tensor> args) const {
  failure_location = {};
  failure_recorded = false;
  const ir::Module& m = impl_->module;
  if (m.num_replicas * m.num_partitions > 1) return run_spmd(args);
  const detail::AloneScope alone;
  const detail::HostQueueScope queue(impl_->queue());
  return run_function(impl_->plan, *impl_->entry, args);
}

// Every process of the module's grid runs the entry on the whole arguments (outside
// its manual regions each holds whole values), so process 0's results are all of
// them. Across the processes of a distributed job of that size, this process runs
// its own.
std::vector<Tensor> Program::run_spmd(std::span<const Tensor> args) const {
  const ir::Module& m = impl_->module;
  const std::int64_t n = m.num_replicas * m.num_partitions;
  detail::HostQueue* queue = impl_->queue();
  const auto one = [&](std::int64_t) {
    const detail::HostQueueScope scope(queue);
    return run_function(impl_->plan, *impl_->entry, args);
  };
  if (detail::Processes* world = detail::distributed_world();
      world != nullptr && m.num_replicas == 1 && world->num_partitions() == n) {
    const detail::ProcessScope scope(*world);
    return one(world->self());
  }
  const detail::Processes& here = detail::current_processes();
  if (here.num_replicas() * here.num_partitions() > 1)
    throw ValueError(
        fmt::format("@{}: an SPMD program of {} x {} processes runs inside process {} of another "
                    "grid",
                    impl_->entry->f->name, m.num_replicas, m.num_partitions, here.self()));
  return run_processes(m.num_replicas, m.num_partitions, one).at(0);
}

std::vector<std::vector<Tensor>> Program::run_devices(std::span<const std::vector<Tensor>> args) const {
  const ir::Module& m = impl_->module;
  if (std::int64_t(args.size()) != m.num_replicas * m.num_partitions)
    throw ValueError(fmt::format("@{}: the program runs on {} x {} devices, got arguments for {}",
                                 impl_->entry->f->name, m.num_replicas, m.num_partitions, args.size()));
  failure_location = {};
  failure_recorded = false;
  detail::HostQueue* queue = impl_->queue();
  return run_processes(m.num_replicas, m.num_partitions, [&](std::int64_t k) {
    const detail::HostQueueScope scope(queue);
    return run_function(impl_->plan, *impl_->entry, args[std::size_t(k)]);
  });
}

const ir::Module& Program::module() const { return impl_->module; }
const ir::Function& Program::entry() const { return *impl_->entry->f; }

std::vector<Tensor> run(const ir::Function& f, std::span<const Tensor> args) { return Program(f).run(args); }
std::vector<Tensor> run(const ir::Module& m, std::span<const Tensor> args, std::string_view entry) {
  return Program(m, entry).run(args);
}

}  // namespace tlaloc::interp
