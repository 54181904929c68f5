#include "core/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <memory>
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

// One parallel_for call. Workers hold it by shared_ptr, so a worker that wakes
// late can only find it exhausted, never claim a part of the next call.
struct Job {
  const std::function<void(std::int64_t)>* fn = nullptr;
  std::int64_t parts = 0;
  std::atomic<std::int64_t> next{0}, done{0};
  std::mutex error_mu;
  std::exception_ptr error;

  void drain() {
    for (std::int64_t i = next.fetch_add(1); i < parts; i = next.fetch_add(1)) {
      try {
        (*fn)(i);
      } catch (...) {
        std::lock_guard lock(error_mu);
        if (!error) error = std::current_exception();
      }
      done.fetch_add(1);
    }
  }
};

// A fixed set of workers; the calling thread works too. Idle workers spin briefly
// before sleeping, so a stream of small ops does not pay a wake-up per op.
class Pool {
 public:
  static Pool& get() {
    static Pool pool;
    return pool;
  }
  int threads() const { return threads_; }
  void resize(int n) {
    std::lock_guard call_lock(call_mu_);
    stop_workers();
    threads_ = std::max(1, n);
    for (int i = 1; i < threads_; ++i) workers_.emplace_back([this, g = generation_.load()] { work(g); });
  }
  void run(std::int64_t parts, const std::function<void(std::int64_t)>& part) {
    std::lock_guard call_lock(call_mu_);  // concurrent callers queue here
    auto job = std::make_shared<Job>();
    job->fn = &part;
    job->parts = parts;
    {
      std::lock_guard lock(mu_);
      job_ = job;
      generation_.fetch_add(1);
    }
    if (sleeping_.load() > 0) cv_.notify_all();
    job->drain();
    // The other parts are running: wait for them, yielding if they take long.
    for (int spins = 0; job->done.load() != parts; ++spins) {
      if (spins < (1 << 14)) spin_pause();
      else std::this_thread::yield();
    }
    if (job->error) std::rethrow_exception(job->error);
  }
  ~Pool() { stop_workers(); }

 private:
  Pool() { resize(default_threads()); }
  static void spin_pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
  void stop_workers() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
      generation_.fetch_add(1);
    }
    cv_.notify_all();
    for (auto& w : workers_) w.join();
    workers_.clear();
    stopping_ = false;
  }
  // `seen` is the generation when the worker was created: anything newer is for it.
  void work(std::uint64_t seen) {
    for (;;) {
      constexpr int spins = 1 << 14;
      for (int i = 0; i < spins && generation_.load() == seen; ++i) spin_pause();
      std::shared_ptr<Job> job;
      {
        std::unique_lock lock(mu_);
        if (!stopping_ && generation_.load() == seen) {
          sleeping_.fetch_add(1);
          cv_.wait(lock, [&] { return stopping_ || generation_.load() != seen; });
          sleeping_.fetch_sub(1);
        }
        seen = generation_.load();
        if (stopping_) return;
        job = job_;
      }
      if (job) job->drain();
    }
  }

  int threads_ = 1;
  std::vector<std::thread> workers_;
  std::mutex call_mu_, mu_;
  std::condition_variable cv_;
  std::shared_ptr<Job> job_;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<int> sleeping_{0};
  bool stopping_ = false;
};

thread_local bool in_parallel_region = false;

}  // namespace

std::int64_t parallel_parts(std::int64_t n, std::int64_t grain) {
  if (n <= 0) return 0;
  const std::int64_t by_size = (n + grain - 1) / std::max<std::int64_t>(grain, 1);
  return std::max<std::int64_t>(1, std::min<std::int64_t>(by_size, Pool::get().threads()));
}

void parallel_for_parts(std::int64_t n, std::int64_t grain,
                        const std::function<void(std::int64_t, std::int64_t, std::int64_t)>& fn) {
  const std::int64_t parts = parallel_parts(n, grain);
  if (parts == 0) return;
  if (parts == 1 || in_parallel_region) {
    // Same cut points as the threaded path, so results do not depend on nesting.
    for (std::int64_t p = 0; p < parts; ++p) fn(p, n * p / parts, n * (p + 1) / parts);
    return;
  }
  Pool::get().run(parts, [&](std::int64_t p) {
    struct Region {
      Region() { in_parallel_region = true; }
      ~Region() { in_parallel_region = false; }
    } region;
    fn(p, n * p / parts, n * (p + 1) / parts);
  });
}

void parallel_for(std::int64_t n, std::int64_t grain,
                  const std::function<void(std::int64_t, std::int64_t)>& fn) {
  parallel_for_parts(n, grain, [&](std::int64_t, std::int64_t b, std::int64_t e) { fn(b, e); });
}

}  // namespace detail

void set_num_threads(int n) {
  if (n < 1) throw ValueError("tl::set_num_threads: need at least 1 thread, got " + std::to_string(n));
  detail::Pool::get().resize(n);
}
int num_threads() { return detail::Pool::get().threads(); }

}  // namespace tlaloc
