// The host side of infeed and outfeed: the values a caller queues for a program's
// infeed ops, oldest first, and the values its outfeed ops leave, in order.
#pragma once

#include <deque>
#include <mutex>
#include <string_view>
#include <vector>

#include "tlaloc/tensor.hpp"

namespace tlaloc::detail {

class HostQueue {
 public:
  void push_infeed(std::vector<Tensor> values);
  // The oldest queued values; refused by name (`op`) when none are left.
  std::vector<Tensor> pop_infeed(std::string_view op);
  void push_outfeed(std::vector<Tensor> values);
  std::vector<std::vector<Tensor>> outfeed() const;

 private:
  mutable std::mutex mu_;
  std::deque<std::vector<Tensor>> in_;
  std::vector<std::vector<Tensor>> out_;
};

// The queue of the program this thread runs (null: none, and infeed and outfeed refuse
// by name).
HostQueue* current_host_queue();

// Makes `q` this thread's queue for the scope's life.
class HostQueueScope {
 public:
  explicit HostQueueScope(HostQueue* q);
  ~HostQueueScope();
  HostQueueScope(const HostQueueScope&) = delete;
  HostQueueScope& operator=(const HostQueueScope&) = delete;

 private:
  HostQueue* saved_;
};

}  // namespace tlaloc::detail
