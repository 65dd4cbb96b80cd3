// The host thread pool (host_parallel.hpp).
#include <cuforge/runtime/host_parallel.hpp>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace cuforge {

unsigned host_workers() noexcept {
  static const unsigned n = [] {
    if (const char* e = std::getenv("CUFORGE_NUM_THREADS")) {
      char* end = nullptr;
      const long v = std::strtol(e, &end, 10);
      if (end != e && *end == '\0' && v >= 1) return static_cast<unsigned>(std::min<long>(v, 1024));
    }
    return std::max(1u, std::thread::hardware_concurrency());
  }();
  return n;
}

namespace {

thread_local bool in_pool_work = false;

/// A pool of host_workers() - 1 threads that join the calling thread in one
/// host_parallel_for at a time. Made on first use; a child process made by
/// fork (which has none of the parent's threads) makes its own.
class host_pool {
 public:
  static host_pool& get() {
    static std::mutex made_lock;
    static host_pool* pool = nullptr;
    std::lock_guard g(made_lock);
    if (pool == nullptr || pool->pid_ != ::getpid()) pool = new host_pool();  // (a forked parent's is leaked)
    return *pool;
  }

  void run(std::size_t n, const std::function<void(std::size_t)>& fn) {
    std::lock_guard one(run_lock_);
    {
      std::lock_guard g(lock_);
      fn_ = &fn;
      n_ = n;
      next_.store(0);
      error_ = nullptr;
      busy_ = workers_.size();
      ++generation_;
    }
    wake_.notify_all();
    work();
    std::unique_lock g(lock_);
    done_.wait(g, [&] { return busy_ == 0; });
    fn_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  host_pool() : pid_(::getpid()) {
    const unsigned extra = host_workers() - 1;
    for (unsigned i = 0; i < extra; ++i) {
      workers_.emplace_back([this] { loop(); });
      workers_.back().detach();  // they live as long as the process
    }
  }

  void loop() {
    std::uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock g(lock_);
        wake_.wait(g, [&] { return generation_ != seen; });
        seen = generation_;
      }
      work();
      std::lock_guard g(lock_);
      if (--busy_ == 0) done_.notify_all();
    }
  }

  void work() {
    in_pool_work = true;
    for (;;) {
      const std::size_t i = next_.fetch_add(1);
      if (i >= n_) break;
      try {
        (*fn_)(i);
      } catch (...) {
        std::lock_guard g(lock_);
        if (!error_) error_ = std::current_exception();
        next_.store(n_);  // the others stop at their next index
      }
    }
    in_pool_work = false;
  }

  const pid_t pid_;
  std::vector<std::thread> workers_;
  std::mutex run_lock_;  // one run at a time
  std::mutex lock_;
  std::condition_variable wake_, done_;
  std::uint64_t generation_ = 0;
  std::size_t busy_ = 0;
  const std::function<void(std::size_t)>* fn_ = nullptr;
  std::size_t n_ = 0;
  std::atomic<std::size_t> next_{0};
  std::exception_ptr error_;
};

}  // namespace

void host_parallel_for(std::size_t n, const std::function<void(std::size_t)>& fn) {
  if (n == 0) return;
  if (n == 1 || in_pool_work || host_workers() == 1) {
    for (std::size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  host_pool::get().run(n, fn);
}

}  // namespace cuforge
