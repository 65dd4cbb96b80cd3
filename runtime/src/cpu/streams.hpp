#pragma once

/// @file
/// The cpu backend's streams and events. A stream is an in-order queue run
/// by its own worker thread, so work really is asynchronous and a missing
/// synchronisation shows up on the CPU as it would on a GPU. The legacy
/// default stream and blocking streams order against each other as the
/// driver's do: an operation on one first waits for the work already queued
/// on the other(s).

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace cuforge::detail::cpu {

class stream_state : public std::enable_shared_from_this<stream_state> {
 public:
  enum class role { user, legacy, per_thread };

  stream_state(int device, int priority, bool non_blocking, role r)
      : device_(device), priority_(priority), non_blocking_(non_blocking), role_(r) {}
  ~stream_state();

  int device() const noexcept { return device_; }
  int priority() const noexcept { return priority_; }
  bool non_blocking() const noexcept { return non_blocking_; }
  role kind() const noexcept { return role_; }
  /// Orders with the legacy default stream (user blocking streams and
  /// per-thread default streams do).
  bool blocking() const noexcept { return !non_blocking_ && role_ != role::legacy; }

  /// Queues `op`; returns its ticket (1-based, in order).
  std::uint64_t push(std::function<void()> op);
  /// Runs `op` on the calling thread, in order, when the stream is idle (the
  /// caller would only wait for the worker otherwise); false when it is not
  /// idle and nothing was run. A failure is reported like a queued one's.
  bool try_run_inline(const std::function<void()>& op);
  /// Tickets issued and completed so far.
  std::uint64_t issued() const;
  bool done(std::uint64_t ticket) const;
  /// Blocks until `ticket` has completed.
  void wait_for(std::uint64_t ticket) const;
  /// Blocks until everything issued so far has completed, then reports (and
  /// clears) the first failure of an operation since the last report.
  void synchronize();
  /// Non-blocking: true when idle; reports a failure like synchronize().
  bool query();
  /// Lets the worker finish what is queued and exit; the state is freed
  /// when the last reference (the worker's own included) goes.
  void retire();

 private:
  void run();
  void report_error();
  void record(int status, std::string message);
  static int execute(const std::function<void()>& op, std::string& message) noexcept;

  const int device_;
  const int priority_;
  const bool non_blocking_;
  const role role_;

  mutable std::mutex m_;
  std::condition_variable work_cv_;
  mutable std::condition_variable done_cv_;
  std::deque<std::function<void()>> queue_;
  std::uint64_t issued_ = 0;
  std::uint64_t completed_ = 0;
  // Copies of issued_ and completed_ (written under m_) that a short spin reads without the lock:
  // a launch followed by synchronize hands over in a few microseconds instead of a sleep and a
  // wake on each side (docs/cpu_execution.md, "Streams").
  std::atomic<std::uint64_t> issued_seen_{0};
  mutable std::atomic<std::uint64_t> completed_seen_{0};
  bool started_ = false;
  bool retiring_ = false;
  bool inline_ = false;  ///< an op is running on a caller's thread: the worker waits
  int error_status_ = 0;
  std::string error_message_;
};

/// What an event's record marks: filled in by the stream when reached.
struct event_mark {
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::chrono::steady_clock::time_point when;
  void complete();
  void wait();
};

struct event_state {
  int device = 0;
  bool timing = true;
  std::mutex m;
  std::shared_ptr<event_mark> last;  ///< null until recorded
};

}  // namespace cuforge::detail::cpu
