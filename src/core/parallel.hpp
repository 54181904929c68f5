// Deterministic data parallelism: work is cut into a number of parts that depends
// only on the size and the thread count, never on timing.
#pragma once

#include <cstdint>
#include <functional>

namespace tlaloc::detail {

// Calls fn(begin, end) on consecutive parts of [0, n), each at least `grain` long
// (except a short last one), one part per thread at most. Runs inline when one
// part suffices. Exceptions from fn propagate to the caller.
void parallel_for(std::int64_t n, std::int64_t grain,
                  const std::function<void(std::int64_t, std::int64_t)>& fn);

// The same, passing the part index too: fn(part, begin, end).
void parallel_for_parts(std::int64_t n, std::int64_t grain,
                        const std::function<void(std::int64_t, std::int64_t, std::int64_t)>& fn);

// The number of parts parallel_for uses for n items: the same for a given n,
// grain and thread count. Reductions use it to fix their combination order.
std::int64_t parallel_parts(std::int64_t n, std::int64_t grain);

// Elements per part for cheap elementwise work: below it, threads cost more than they save.
inline constexpr std::int64_t kElementwiseGrain = 1 << 15;

}  // namespace tlaloc::detail
