#include "cpu/streams.hpp"

#include "status.hpp"

#include <cuforge/runtime/detail/backend.hpp>

#include <cuda.h>

#include <exception>

namespace cuforge::detail::cpu {

namespace {

// How long a thread spins for the other side of a hand-off before it sleeps: a launch's op on
// an idle stream, or the completion a synchronize waits for. Short enough that an idle stream
// costs nothing measurable, long enough to cover a small kernel's run and the caller's next launch.
constexpr auto spin_for = std::chrono::microseconds(40);

void relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Spins until `ready()` or the spin's time is up; whether it became ready. Yields now and then,
// so on a machine with more runnable threads than cores the thread it waits for gets to run.
template <class Ready>
bool spin_until(Ready ready) {
  const auto end = std::chrono::steady_clock::now() + spin_for;
  for (unsigned i = 1;; ++i) {
    if (ready()) return true;
    relax();
    if (i % 64 == 0) {
      if (std::chrono::steady_clock::now() >= end) return ready();
      std::this_thread::yield();
    }
  }
}

}  // namespace

stream_state::~stream_state() = default;

std::uint64_t stream_state::push(std::function<void()> op) {
  std::unique_lock lock(m_);
  queue_.push_back(std::move(op));
  std::uint64_t ticket = ++issued_;
  issued_seen_.store(ticket, std::memory_order_release);
  if (!started_) {
    started_ = true;
    // The worker holds the state alive until it has drained the queue after
    // retire(), so destroying a stream never cuts off queued work.
    std::thread([self = shared_from_this()] { self->run(); }).detach();
  }
  lock.unlock();
  work_cv_.notify_one();
  return ticket;
}

int stream_state::execute(const std::function<void()>& op, std::string& message) noexcept {
  try {
    op();
    return 0;
  } catch (const cuda_error& e) {
    message = e.message();
    return e.status();
  } catch (const std::exception& e) {
    message = e.what();
    return CUDA_ERROR_LAUNCH_FAILED;
  } catch (...) {
    message = "an operation on the stream failed with an unknown exception";
    return CUDA_ERROR_UNKNOWN;
  }
}

void stream_state::record(int status, std::string message) {
  // Called with m_ held.
  if (status && !error_status_) {
    error_status_ = status;
    error_message_ = std::move(message);
  }
  ++completed_;
  completed_seen_.store(completed_, std::memory_order_release);
  done_cv_.notify_all();
}

void stream_state::run() {
  // Everything this thread runs is stream work: it must never wait for the
  // device (it would wait for itself).
  callback_scope scope;
  std::unique_lock lock(m_);
  for (;;) {
    if (queue_.empty() && !retiring_) {
      // Idle: spin a little for the next op (a loop of launches and synchronizes) before sleeping.
      const std::uint64_t seen = issued_;
      lock.unlock();
      spin_until([&] { return issued_seen_.load(std::memory_order_acquire) != seen; });
      lock.lock();
    }
    work_cv_.wait(lock, [&] { return (!queue_.empty() || retiring_) && !inline_; });
    if (queue_.empty()) return;  // retiring, and nothing left to do
    auto op = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    std::string message;
    int status = execute(op, message);
    op = nullptr;  // release captures before reporting completion
    lock.lock();
    record(status, std::move(message));
  }
}

bool stream_state::try_run_inline(const std::function<void()>& op) {
  std::unique_lock lock(m_);
  if (completed_ != issued_ || inline_) return false;
  ++issued_;
  issued_seen_.store(issued_, std::memory_order_release);
  inline_ = true;  // later pushes queue up behind this op
  lock.unlock();
  std::string message;
  int status = execute(op, message);
  lock.lock();
  inline_ = false;
  record(status, std::move(message));
  bool more = !queue_.empty();
  lock.unlock();
  if (more) work_cv_.notify_one();
  return true;
}

std::uint64_t stream_state::issued() const {
  std::lock_guard lock(m_);
  return issued_;
}

bool stream_state::done(std::uint64_t ticket) const {
  std::lock_guard lock(m_);
  return completed_ >= ticket;
}

void stream_state::wait_for(std::uint64_t ticket) const {
  spin_until([&] { return completed_seen_.load(std::memory_order_acquire) >= ticket; });
  std::unique_lock lock(m_);
  done_cv_.wait(lock, [&] { return completed_ >= ticket; });
}

void stream_state::report_error() {
  // Called with m_ held.
  if (!error_status_) return;
  int status = error_status_;
  std::string message = std::move(error_message_);
  error_status_ = 0;
  error_message_.clear();
  raise(status, "an earlier asynchronous operation failed: " + message, "stream synchronize (cpu backend)");
}

void stream_state::synchronize() {
  std::unique_lock lock(m_);
  std::uint64_t ticket = issued_;
  if (completed_ < ticket) {
    lock.unlock();
    spin_until([&] { return completed_seen_.load(std::memory_order_acquire) >= ticket; });
    lock.lock();
  }
  done_cv_.wait(lock, [&] { return completed_ >= ticket; });
  report_error();
}

bool stream_state::query() {
  std::lock_guard lock(m_);
  report_error();
  return completed_ == issued_;
}

void stream_state::retire() {
  {
    std::lock_guard lock(m_);
    retiring_ = true;
  }
  work_cv_.notify_one();
}

void event_mark::complete() {
  {
    std::lock_guard lock(m);
    when = std::chrono::steady_clock::now();
    done = true;
  }
  cv.notify_all();
}

void event_mark::wait() {
  std::unique_lock lock(m);
  cv.wait(lock, [&] { return done; });
}

}  // namespace cuforge::detail::cpu
