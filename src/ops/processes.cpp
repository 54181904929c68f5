#include "ops/processes.hpp"

#include <algorithm>

#include "core/check.hpp"

namespace tlaloc::detail {
namespace {

thread_local Processes* current = nullptr;

// A program run on its own is the one process of a 1 x 1 grid, as the spec runs it.
class OneProcess final : public Processes {
 public:
  std::int64_t num_replicas() const override { return 1; }
  std::int64_t num_partitions() const override { return 1; }
  ProcessIndex self() const override { return 0; }
  std::vector<Tensor> exchange(std::string_view, std::span<const ProcessIndex>, const Tensor& mine) override {
    return {mine};
  }
  void send(std::string_view, std::int64_t channel, std::vector<Tensor> values) override {
    sent_[channel].push_back(std::move(values));
  }
  // No other process can send: waiting would never end.
  std::vector<Tensor> recv(std::string_view op, std::int64_t channel) override {
    auto at = sent_.find(channel);
    if (at == sent_.end() || at->second.empty())
      fail(op, "waits on channel {}, where this process (the only one) has sent nothing left to receive",
           channel);
    std::vector<Tensor> v = std::move(at->second.front());
    at->second.pop_front();
    return v;
  }

 private:
  Channels sent_;
};

}  // namespace

Tensor Processes::reduce(std::string_view op, std::span<const ProcessIndex> group, const Tensor& mine,
                         const Combine& combine) {
  const std::vector<Tensor> values = exchange(op, group, mine);
  Tensor acc = values.at(0);
  for (std::size_t k = 1; k < values.size(); ++k) acc = combine(acc, values[k]);
  return acc;
}

namespace {

std::int64_t channel_id(const Attrs& attrs) {
  return attrs.has("channel_id") ? attrs.get<std::int64_t>("channel_id") : 0;
}

// The rows of replica_groups without their -1 padding. None (no rows, or rows of no
// ids) is every id below `all`, as XLA reads it.
std::vector<std::vector<std::int64_t>> groups_of(std::string_view op, const Attrs& attrs, std::int64_t all) {
  std::vector<std::vector<std::int64_t>> groups;
  if (attrs.has("replica_groups")) {
    const Tensor& g = attrs.get<Tensor>("replica_groups");
    if (g.rank() != 2)
      fail<ShapeError>(op, "replica_groups must be a matrix, got {}", shape_string(g.shape()));
    const std::vector<std::int64_t> ids = g.to_vector<std::int64_t>();
    const std::int64_t width = g.shape()[1];
    for (std::int64_t r = 0; r < g.shape()[0]; ++r) {
      std::vector<std::int64_t> row;
      for (std::int64_t k = 0; k < width; ++k)
        if (ids[std::size_t(r * width + k)] != -1) row.push_back(ids[std::size_t(r * width + k)]);
      if (!row.empty()) groups.push_back(std::move(row));
    }
  }
  if (groups.empty()) {
    groups.emplace_back();
    for (std::int64_t i = 0; i < all; ++i) groups.back().push_back(i);
  }
  std::vector<bool> seen(std::size_t(std::max<std::int64_t>(all, 0)), false);
  for (const std::vector<std::int64_t>& row : groups)
    for (std::int64_t id : row) {
      if (id < 0 || id >= all)
        fail<ValueError>(op, "replica_groups names {}, not one of the {} ids", id, all);
      if (seen[std::size_t(id)]) fail<ValueError>(op, "replica_groups names {} twice", id);
      seen[std::size_t(id)] = true;
    }
  return groups;
}

}  // namespace

Processes& current_processes() {
  thread_local OneProcess alone;
  return current != nullptr ? *current : alone;
}

ProcessScope::ProcessScope(Processes& p) : saved_(current) { current = &p; }
ProcessScope::~ProcessScope() { current = saved_; }

CppSpelling one_process_only(std::string op) {
  return [op](CppOp&) -> std::string {
    fail(op,
         "has no C++ spelling: a printed function runs as one process, and this op works across processes");
  };
}

namespace {
std::unique_ptr<Processes>& world_slot() {
  static std::unique_ptr<Processes> world;
  return world;
}
}  // namespace

Processes* distributed_world() { return world_slot().get(); }
void set_distributed_world(std::unique_ptr<Processes> world) { world_slot() = std::move(world); }

AloneScope::AloneScope() {
  if (current != nullptr) return;
  alone_ = std::make_unique<OneProcess>();
  scope_ = std::make_unique<ProcessScope>(*alone_);
}
AloneScope::~AloneScope() = default;

GroupMode group_mode(std::string_view op, const Attrs& attrs, bool partitions_by_channel) {
  const bool global = attrs.has("use_global_device_ids") && attrs.get<bool>("use_global_device_ids");
  const bool channel = channel_id(attrs) > 0;
  if (partitions_by_channel) {
    if (global) fail<ValueError>(op, "takes no use_global_device_ids");
    return channel ? GroupMode::cross_partition : GroupMode::cross_replica;
  }
  if (global && !channel) fail<ValueError>(op, "use_global_device_ids needs a channel_handle above 0");
  if (global) return GroupMode::flattened_ids;
  return channel ? GroupMode::cross_replica_and_partition : GroupMode::cross_replica;
}

std::vector<ProcessIndex> my_group(std::string_view op, const Processes& p, const Attrs& attrs,
                                   bool partitions_by_channel) {
  const std::int64_t replicas = p.num_replicas(), partitions = p.num_partitions();
  const std::int64_t replica = p.replica_id(), partition = p.partition_id();
  const GroupMode mode = group_mode(op, attrs, partitions_by_channel);
  const std::int64_t ids = mode == GroupMode::flattened_ids     ? replicas * partitions
                           : mode == GroupMode::cross_partition ? partitions
                                                                : replicas;
  for (const std::vector<std::int64_t>& row : groups_of(op, attrs, ids)) {
    std::vector<ProcessIndex> group;
    if (mode == GroupMode::cross_replica_and_partition) {  // partition by partition, as the spec orders them
      for (std::int64_t q = 0; q < partitions; ++q)
        for (std::int64_t id : row) group.push_back(id * partitions + q);
    } else {
      for (std::int64_t id : row)
        group.push_back(mode == GroupMode::cross_replica     ? id * partitions + partition
                        : mode == GroupMode::cross_partition ? replica * partitions + id
                                                             : id);
    }
    if (std::find(group.begin(), group.end(), p.self()) != group.end()) return group;
  }
  return {};
}

}  // namespace tlaloc::detail
