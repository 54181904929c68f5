// Several processes of one program as threads of this process (StableHLO's process
// grid, docs/DISTRIBUTED.md): each thread runs its process's function, and the
// collectives it reaches meet the other threads' at a rendezvous. Results are the
// same bits on every run: a collective combines the values in its group's order,
// whatever order the threads arrive in.
#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include "ops/processes.hpp"

namespace tlaloc::interp {

// How long a collective waits for the rest of its group before it fails, naming the
// op and the processes that did not come: TLALOC_COLLECTIVE_TIMEOUT seconds (60 unless
// set).
double collective_timeout_seconds();

// The most processes run_processes runs at once (each is a thread).
inline constexpr std::int64_t kMaxProcesses = 1024;

// Runs `process(i)` for every process i of a num_replicas x num_partitions grid, each
// on a thread of its own with the grid as its detail::Processes, and returns their
// results in process order. When one fails, the others stop at their next collective
// instead of waiting; the first failure (in process order, a process that stopped
// because of another's failure last) is rethrown as it was thrown. `who` names the
// op that runs the grid when it is too large.
std::vector<std::vector<Tensor>> run_processes(
    std::int64_t num_replicas, std::int64_t num_partitions,
    const std::function<std::vector<Tensor>(std::int64_t)>& process, std::string_view who = "run_processes");

}  // namespace tlaloc::interp
