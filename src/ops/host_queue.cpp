#include "ops/host_queue.hpp"

#include "core/check.hpp"

namespace tlaloc::detail {

void HostQueue::push_infeed(std::vector<Tensor> values) {
  std::lock_guard lock(mu_);
  in_.push_back(std::move(values));
}

std::vector<Tensor> HostQueue::pop_infeed(std::string_view op) {
  std::lock_guard lock(mu_);
  if (in_.empty())
    fail(op, "found the host queue empty: the caller queued fewer values than the program takes");
  std::vector<Tensor> v = std::move(in_.front());
  in_.pop_front();
  return v;
}

void HostQueue::push_outfeed(std::vector<Tensor> values) {
  std::lock_guard lock(mu_);
  out_.push_back(std::move(values));
}

std::vector<std::vector<Tensor>> HostQueue::outfeed() const {
  std::lock_guard lock(mu_);
  return out_;
}

namespace {
thread_local HostQueue* current_queue = nullptr;
}  // namespace

HostQueue* current_host_queue() { return current_queue; }
HostQueueScope::HostQueueScope(HostQueue* q) : saved_(current_queue) { current_queue = q; }
HostQueueScope::~HostQueueScope() { current_queue = saved_; }

}  // namespace tlaloc::detail
