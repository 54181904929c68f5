// The processes a program runs on, as StableHLO's spec describes them: a grid of
// num_replicas x num_partitions processes, each running its own program, which meet
// in collective ops (all_reduce, all_gather, ...). The kernels of those ops
// (ops/collective.cpp) read the grid from here; who runs the processes (threads of
// the interpreter, src/interp/parallel.hpp) implements it.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "ir/op.hpp"

namespace tlaloc::detail {

// A process's index in the grid: replica_id * num_partitions + partition_id.
using ProcessIndex = std::int64_t;

class Processes {
 public:
  virtual ~Processes() = default;
  virtual std::int64_t num_replicas() const = 0;
  virtual std::int64_t num_partitions() const = 0;
  virtual ProcessIndex self() const = 0;
  std::int64_t replica_id() const { return self() / num_partitions(); }
  std::int64_t partition_id() const { return self() % num_partitions(); }

  // Each process of `group` (this one among them, the same group on all of them)
  // calls this with its value; each gets every value, in the group's order. `op`
  // names the collective in errors.
  virtual std::vector<Tensor> exchange(std::string_view op, std::span<const ProcessIndex> group,
                                       const Tensor& mine) = 0;

  // Each process of `group` calls this with its value; each gets the values combined
  // element by element in the group's order, combine(combine(v0, v1), v2)..., where
  // `combine` takes and gives tensors of one type, element by element. The fold of
  // exchange by default; a transport may fold parts of the values on different
  // processes, which gives the same bits.
  using Combine = std::function<Tensor(const Tensor&, const Tensor&)>;
  virtual Tensor reduce(std::string_view op, std::span<const ProcessIndex> group, const Tensor& mine,
                        const Combine& combine);

  // Point to point (send, recv): the values sent on a channel wait there, in the order
  // sent, until a process receives them; `recv` takes the oldest, waiting for one if
  // none has come. `op` names the op in errors.
  virtual void send(std::string_view op, std::int64_t channel, std::vector<Tensor> values) = 0;
  virtual std::vector<Tensor> recv(std::string_view op, std::int64_t channel) = 0;
};

// The C++ spelling of an op that works across processes: it refuses to print, naming
// `op`, because a printed function runs as one process.
CppSpelling one_process_only(std::string op);

// The messages sent on each channel and not yet received, oldest first.
using Channels = std::map<std::int64_t, std::deque<std::vector<Tensor>>>;

// The processes this thread runs one of: outside a parallel run, the one process of a
// 1 x 1 grid (a group naming any other is refused by the op).
Processes& current_processes();

// Makes `p` this thread's processes for the scope's life.
class ProcessScope {
 public:
  explicit ProcessScope(Processes& p);
  ~ProcessScope();
  ProcessScope(const ProcessScope&) = delete;
  ProcessScope& operator=(const ProcessScope&) = delete;

 private:
  Processes* saved_;
};

// The processes of a job that spans operating-system processes (an MPI job, set by
// tl::distributed::initialize): a 1 x size grid, this process one partition of it.
// Null when the program runs in one process.
Processes* distributed_world();
void set_distributed_world(std::unique_ptr<Processes> world);

// A program run outside a grid runs as a 1 x 1 grid of its own for the scope's life,
// so that what one run sends and does not receive never reaches another; inside a
// grid's process it changes nothing.
class AloneScope {
 public:
  AloneScope();
  ~AloneScope();
  AloneScope(const AloneScope&) = delete;
  AloneScope& operator=(const AloneScope&) = delete;

 private:
  std::unique_ptr<Processes> alone_;
  std::unique_ptr<ProcessScope> scope_;
};

// The process group holding this process, as the spec's collectives form them from
// `replica_groups` (an i64 matrix, rows of process ids padded with -1), the channel id
// and use_global_device_ids:
//   cross_replica               channel_id <= 0: replicas of the group, in this partition
//   cross_replica_and_partition channel_id > 0: every partition of those replicas,
//                               partition by partition
//   flattened_ids               channel_id > 0 and use_global_device_ids: process indices
//   cross_partition             (all_to_all, collective_permute, collective_broadcast with
//                               channel_id > 0): partitions of the group, in this replica
// Refuses (naming `op`) an id named twice or out of range. An empty result: this
// process is in none of the groups.
enum class GroupMode : std::uint8_t {
  cross_replica,
  cross_replica_and_partition,
  flattened_ids,
  cross_partition
};
GroupMode group_mode(std::string_view op, const Attrs& attrs, bool partitions_by_channel);
std::vector<ProcessIndex> my_group(std::string_view op, const Processes& p, const Attrs& attrs,
                                   bool partitions_by_channel);

}  // namespace tlaloc::detail
