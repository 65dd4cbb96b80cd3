#pragma once

/// @file
/// Deferred deallocation. An array may have been used on any stream, so its
/// memory may only go back once the device has finished the work queued
/// before the free; waiting for the device at every free would stall, so
/// frees are queued and run in batches, after one wait for each device the
/// batch touches: when the queue holds CUFORGE_DEALLOCS_COUNT frees
/// (default 10) or CUFORGE_DEALLOCS_RATIO of the device's memory (default
/// 0.2), when memory runs out, and at synchronisation points (flush()).
/// Inside a defer_cleanup scope nothing is freed; leaving the outermost
/// scope resumes normal flushing. Nothing is flushed from a thread running
/// stream work or a callback, where waiting for the device would deadlock.

#include <cuforge/runtime/export.hpp>

#include <cstddef>
#include <functional>
#include <mutex>
#include <vector>

namespace cuforge::memory {

class CUFORGE_API deallocation_queue {
 public:
  /// The process-wide queue.
  static deallocation_queue& instance();

  /// @brief Queues `release`, which frees `bytes` of memory of `device`
  /// (-1: memory the device never touches, so no wait is needed); may flush.
  void push(std::function<void()> release, std::size_t bytes, int device);
  /// @brief Runs every pending release now, unless inside defer_cleanup.
  void flush();
  /// @brief Runs every pending release now, even inside defer_cleanup (used
  /// when memory has run out and waiting would only fail).
  void flush_forced();

  std::size_t pending_count() const;
  std::size_t pending_bytes() const;
  bool deferring() const;

  void begin_defer();
  void end_defer();

  /// @brief Runs every wait for the device through `hook` (it must call
  /// its argument). A language binding installs one that lets go of its
  /// interpreter lock while waiting: a free can happen wherever an owner is
  /// dropped, lock held or not.
  void set_wait_hook(std::function<void(const std::function<void()>&)> hook);

  std::size_t max_pending_count() const noexcept { return max_count_; }
  std::size_t max_pending_bytes() {
    std::lock_guard lock(m_);
    return byte_threshold();
  }

 private:
  deallocation_queue();
  struct entry {
    std::function<void()> release;
    int device;
  };
  void run(std::vector<entry> batch) noexcept;
  std::vector<entry> take_if(bool force);
  void drain(bool force);
  std::size_t byte_threshold();

  mutable std::mutex m_;
  std::vector<entry> pending_;
  std::size_t bytes_ = 0;
  int defer_depth_ = 0;
  std::function<void(const std::function<void()>&)> wait_hook_;
  std::size_t max_count_;
  std::size_t max_bytes_;
};

/// @brief While alive, nothing is freed (numba's cuda.defer_cleanup()).
class CUFORGE_API defer_cleanup {
 public:
  defer_cleanup() { deallocation_queue::instance().begin_defer(); }
  ~defer_cleanup() { deallocation_queue::instance().end_defer(); }
  defer_cleanup(const defer_cleanup&) = delete;
  defer_cleanup& operator=(const defer_cleanup&) = delete;
};

/// @brief Waits for the device, then flushes pending deallocations.
CUFORGE_API void synchronize(int device = -1);

}  // namespace cuforge::memory
