#include "cpu/streams.hpp"

#include "status.hpp"

#include <cuforge/runtime/detail/backend.hpp>

#include <cuda.h>

#include <exception>

namespace cuforge::detail::cpu {

stream_state::~stream_state() = default;

std::uint64_t stream_state::push(std::function<void()> op) {
  std::unique_lock lock(m_);
  queue_.push_back(std::move(op));
  std::uint64_t ticket = ++issued_;
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

void stream_state::run() {
  // Everything this thread runs is stream work: it must never wait for the
  // device (it would wait for itself).
  callback_scope scope;
  std::unique_lock lock(m_);
  for (;;) {
    work_cv_.wait(lock, [&] { return !queue_.empty() || retiring_; });
    if (queue_.empty()) return;  // retiring, and nothing left to do
    auto op = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    int status = 0;
    std::string message;
    try {
      op();
    } catch (const cuda_error& e) {
      status = e.status();
      message = e.message();
    } catch (const std::exception& e) {
      status = CUDA_ERROR_LAUNCH_FAILED;
      message = e.what();
    } catch (...) {
      status = CUDA_ERROR_UNKNOWN;
      message = "an operation on the stream failed with an unknown exception";
    }
    op = nullptr;  // release captures before reporting completion
    lock.lock();
    if (status && !error_status_) {
      error_status_ = status;
      error_message_ = std::move(message);
    }
    ++completed_;
    done_cv_.notify_all();
  }
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
