#include "core/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "tlaloc/ops.hpp"

namespace tlaloc {
namespace detail {
namespace {

int default_threads() {
  if (const char* env = std::getenv("TLALOC_NUM_THREADS")) {
    const int n = std::atoi(env);
    if (n > 0) return n;
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

// A fixed set of workers. One job at a time: the caller takes part 0 and waits.
class Pool {
 public:
  static Pool& get() {
    static Pool pool;
    return pool;
  }
  int threads() const { return threads_; }
  void resize(int n) {
    stop_workers();
    threads_ = std::max(1, n);
    for (int i = 1; i < threads_; ++i) workers_.emplace_back([this] { work(); });
  }
  void run(std::int64_t parts, const std::function<void(std::int64_t)>& part) {
    std::unique_lock call_lock(call_mu_);  // nested or concurrent calls queue here
    {
      std::lock_guard lock(mu_);
      job_ = &part;
      parts_ = parts;
      next_.store(1);
      done_ = 0;
      error_ = nullptr;
      ++generation_;
    }
    cv_.notify_all();
    run_part(0);
    drain();
    std::unique_lock lock(mu_);
    done_cv_.wait(lock, [&] { return done_ == parts_; });
    job_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }
  ~Pool() { stop_workers(); }

 private:
  Pool() { resize(default_threads()); }
  void stop_workers() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    for (auto& w : workers_) w.join();
    workers_.clear();
    stopping_ = false;
  }
  void run_part(std::int64_t i) {
    try {
      (*job_)(i);
    } catch (...) {
      std::lock_guard lock(mu_);
      if (!error_) error_ = std::current_exception();
    }
    std::lock_guard lock(mu_);
    if (++done_ == parts_) done_cv_.notify_all();
  }
  void drain() {
    for (std::int64_t i = next_.fetch_add(1); i < parts_; i = next_.fetch_add(1)) run_part(i);
  }
  void work() {
    std::uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return stopping_ || (generation_ != seen && job_ != nullptr); });
        if (stopping_) return;
        seen = generation_;
      }
      drain();
    }
  }

  int threads_ = 1;
  std::vector<std::thread> workers_;
  std::mutex call_mu_, mu_;
  std::condition_variable cv_, done_cv_;
  const std::function<void(std::int64_t)>* job_ = nullptr;
  std::int64_t parts_ = 0, done_ = 0;
  std::atomic<std::int64_t> next_{0};
  std::uint64_t generation_ = 0;
  bool stopping_ = false;
  std::exception_ptr error_;
};

thread_local bool in_parallel_region = false;

}  // namespace

std::int64_t parallel_parts(std::int64_t n, std::int64_t grain) {
  if (n <= 0) return 0;
  const std::int64_t by_size = (n + grain - 1) / std::max<std::int64_t>(grain, 1);
  return std::max<std::int64_t>(1, std::min<std::int64_t>(by_size, Pool::get().threads()));
}

void parallel_for(std::int64_t n, std::int64_t grain,
                  const std::function<void(std::int64_t, std::int64_t)>& fn) {
  const std::int64_t parts = parallel_parts(n, grain);
  if (parts == 0) return;
  if (parts == 1 || in_parallel_region) {
    // Same cut points as the threaded path, so results do not depend on nesting.
    for (std::int64_t p = 0; p < parts; ++p) fn(n * p / parts, n * (p + 1) / parts);
    return;
  }
  Pool::get().run(parts, [&](std::int64_t p) {
    struct Region {
      Region() { in_parallel_region = true; }
      ~Region() { in_parallel_region = false; }
    } region;
    fn(n * p / parts, n * (p + 1) / parts);
  });
}

}  // namespace detail

void set_num_threads(int n) {
  if (n < 1) throw ValueError("tl::set_num_threads: need at least 1 thread, got " + std::to_string(n));
  detail::Pool::get().resize(n);
}
int num_threads() { return detail::Pool::get().threads(); }

}  // namespace tlaloc
