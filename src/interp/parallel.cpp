#include "interp/parallel.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "core/check.hpp"

namespace tlaloc::interp {
namespace {

using detail::ProcessIndex;
using Group = std::vector<ProcessIndex>;

// Thrown where a process stops because another one failed.
struct Stopped : Error {
  using Error::Error;
};

std::string process_name(ProcessIndex i, std::int64_t partitions) {
  return fmt::format("process {} (replica {}, partition {})", i, i / partitions, i % partitions);
}

// Where the processes of one run meet. A meeting is one collective of one group: the
// k-th exchange each member makes with that group.
class Rendezvous {
 public:
  explicit Rendezvous(std::int64_t partitions) : partitions_(partitions) {}

  std::vector<Tensor> exchange(std::string_view op, const Group& group, std::size_t position, std::int64_t k,
                               const Tensor& mine) {
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::duration<double>(collective_timeout_seconds());
    std::unique_lock lock(mutex_);
    Meeting& m = meetings_[{group, k}];
    if (m.values.empty()) {
      m.values.resize(group.size());
      m.op = op;
      m.first = group[position];
    }
    if (m.op != op && !stop_) {
      stop_ = fmt::format("{} reached {} where {} of its group {} reached {}",
                          process_name(group[position], partitions_), op, process_name(m.first, partitions_),
                          group, m.op);
      arrived_.notify_all();
      throw Error(fmt::format("tl::{}: {}", op, *stop_));
    }
    m.values[position] = mine;
    ++m.arrived;
    arrived_.notify_all();
    const bool complete =
        arrived_.wait_until(lock, deadline, [&] { return m.arrived == group.size() || stop_; });
    if (stop_)
      throw Stopped(
          fmt::format("tl::{}: {} stopped: {}", op, process_name(group[position], partitions_), *stop_));
    if (!complete) {
      std::vector<ProcessIndex> missing;
      for (std::size_t i = 0; i < group.size(); ++i)
        if (!m.values[i].defined()) missing.push_back(group[i]);
      stop_ = fmt::format(
          "{} waited {} s at {} for processes {} of its group {} (do all of them run the same "
          "collectives in the same order?)",
          process_name(group[position], partitions_), collective_timeout_seconds(), op, missing, group);
      arrived_.notify_all();
      throw Error(fmt::format("tl::{}: {}", op, *stop_));
    }
    std::vector<Tensor> values = m.values;
    if (++m.left == group.size()) meetings_.erase({group, k});
    return values;
  }

  void send(std::int64_t channel, std::vector<Tensor> values) {
    std::lock_guard lock(mutex_);
    channels_[channel].push_back(std::move(values));
    arrived_.notify_all();
  }

  std::vector<Tensor> recv(std::string_view op, ProcessIndex self, std::int64_t channel) {
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::duration<double>(collective_timeout_seconds());
    std::unique_lock lock(mutex_);
    std::deque<std::vector<Tensor>>& queue = channels_[channel];
    const bool came = arrived_.wait_until(lock, deadline, [&] { return !queue.empty() || stop_; });
    if (stop_)
      throw Stopped(fmt::format("tl::{}: {} stopped: {}", op, process_name(self, partitions_), *stop_));
    if (!came) {
      stop_ = fmt::format("{} waited {} s at {} for a message on channel {} that no process sent",
                          process_name(self, partitions_), collective_timeout_seconds(), op, channel);
      arrived_.notify_all();
      throw Error(fmt::format("tl::{}: {}", op, *stop_));
    }
    std::vector<Tensor> values = std::move(queue.front());
    queue.pop_front();
    return values;
  }

  // A process failed: every process waiting, or coming later, stops.
  void stop(std::string why) {
    std::lock_guard lock(mutex_);
    if (!stop_) stop_ = std::move(why);
    arrived_.notify_all();
  }

 private:
  struct Meeting {
    std::vector<Tensor> values;
    std::size_t arrived = 0, left = 0;
    std::string op;          // the collective of the first to arrive
    ProcessIndex first = 0;  // who that was
  };
  std::int64_t partitions_;
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::map<std::pair<Group, std::int64_t>, Meeting> meetings_;
  detail::Channels channels_;
  std::optional<std::string> stop_;
};

class ThreadProcess final : public detail::Processes {
 public:
  ThreadProcess(Rendezvous& r, std::int64_t replicas, std::int64_t partitions, ProcessIndex self)
      : r_(r), replicas_(replicas), partitions_(partitions), self_(self) {}

  std::int64_t num_replicas() const override { return replicas_; }
  std::int64_t num_partitions() const override { return partitions_; }
  ProcessIndex self() const override { return self_; }

  std::vector<Tensor> exchange(std::string_view op, std::span<const ProcessIndex> group,
                               const Tensor& mine) override {
    const Group g(group.begin(), group.end());
    const auto at = std::find(g.begin(), g.end(), self_);
    if (at == g.end())
      detail::fail(op, "{} is not in the group {} it exchanges with", process_name(self_, partitions_), g);
    return r_.exchange(op, g, std::size_t(at - g.begin()), calls_[g]++, mine);
  }
  void send(std::string_view, std::int64_t channel, std::vector<Tensor> values) override {
    r_.send(channel, std::move(values));
  }
  std::vector<Tensor> recv(std::string_view op, std::int64_t channel) override {
    return r_.recv(op, self_, channel);
  }

 private:
  Rendezvous& r_;
  std::int64_t replicas_, partitions_;
  ProcessIndex self_;
  std::map<Group, std::int64_t> calls_;  // exchanges made with each group so far
};

}  // namespace

double collective_timeout_seconds() {
  const char* v = std::getenv("TLALOC_COLLECTIVE_TIMEOUT");
  char* end = nullptr;
  const double s = v != nullptr ? std::strtod(v, &end) : 0;
  return v != nullptr && end != v && *end == '\0' && s > 0 ? s : 60.0;
}

std::vector<std::vector<Tensor>> run_processes(
    std::int64_t num_replicas, std::int64_t num_partitions,
    const std::function<std::vector<Tensor>(std::int64_t)>& process, std::string_view who) {
  if (num_replicas < 1 || num_partitions < 1)
    throw ValueError(fmt::format("a process grid needs at least one replica and one partition, got {} x {}",
                                 num_replicas, num_partitions));
  const std::int64_t n = num_replicas * num_partitions;
  if (num_replicas > kMaxProcesses || num_partitions > kMaxProcesses || n > kMaxProcesses)
    throw ValueError(
        fmt::format("tl::{}: a process grid of {} x {}: the host interpreter runs at most {} "
                    "processes, each a thread",
                    who, num_replicas, num_partitions, kMaxProcesses));
  Rendezvous rendezvous(num_partitions);
  std::vector<std::vector<Tensor>> results(static_cast<std::size_t>(n));
  std::vector<std::exception_ptr> failures(static_cast<std::size_t>(n));
  std::vector<bool> stopped(static_cast<std::size_t>(n), false);
  std::vector<std::thread> threads;
  threads.reserve(std::size_t(n));
  for (std::int64_t i = 0; i < n; ++i)
    threads.emplace_back([&, i] {
      ThreadProcess self(rendezvous, num_replicas, num_partitions, i);
      const detail::ProcessScope scope(self);
      try {
        results[std::size_t(i)] = process(i);
      } catch (const Stopped&) {
        failures[std::size_t(i)] = std::current_exception();
        stopped[std::size_t(i)] = true;
      } catch (const std::exception& e) {
        failures[std::size_t(i)] = std::current_exception();
        rendezvous.stop(fmt::format("{} failed: {}", process_name(i, num_partitions), e.what()));
      } catch (...) {
        failures[std::size_t(i)] = std::current_exception();
        rendezvous.stop(process_name(i, num_partitions) + " failed");
      }
    });
  for (std::thread& t : threads) t.join();
  // The cause first: a process that failed on its own, before one that stopped for it.
  for (bool cause : {true, false})
    for (std::int64_t i = 0; i < n; ++i)
      if (failures[std::size_t(i)] && stopped[std::size_t(i)] != cause)
        std::rethrow_exception(failures[std::size_t(i)]);
  return results;
}

}  // namespace tlaloc::interp
