#pragma once

/// @file
/// Events mark a point in a stream: record, query, synchronise, make another
/// stream wait, and time the gap between two of them.

#include <cuforge/runtime/export.hpp>
#include <cuforge/runtime/stream.hpp>

#include <cstdint>

namespace cuforge {

struct event_options {
  bool timing = true;          ///< false makes record/wait cheaper, elapsed_ms unavailable
  bool blocking_sync = false;  ///< synchronize() sleeps instead of spinning
};

class CUFORGE_API event {
 public:
  using options = event_options;

  explicit event(options opts = {}, int device = -1);
  ~event();
  event(const event&) = delete;
  event& operator=(const event&) = delete;
  event(event&& other) noexcept;
  event& operator=(event&& other) noexcept;

  /// @brief Marks the current end of `s`'s queue.
  void record(stream_view s = {});
  /// @brief True once the work before the last record has completed (or if
  /// never recorded).
  bool query() const;
  /// @brief Blocks until the work before the last record has completed.
  void synchronize() const;
  /// @brief Makes `s` wait for this event's last record.
  void wait(stream_view s = {}) const;
  /// @brief Milliseconds from this event's record to `end`'s.
  /// @throws cuda_error CUDA_ERROR_INVALID_HANDLE if either lacks timing,
  ///         CUDA_ERROR_NOT_READY if either has not completed.
  float elapsed_ms(const event& end) const;

  std::uintptr_t handle() const noexcept { return handle_; }
  int device() const noexcept { return device_; }
  bool has_timing() const noexcept { return opts_.timing; }
  /// The context generation it was made in (see close()).
  std::uint64_t generation() const noexcept { return generation_; }

 private:
  void reset() noexcept;
  std::uintptr_t handle_ = 0;
  int device_ = 0;
  options opts_;
  std::uint64_t generation_ = 0;
};

/// @brief Milliseconds between two recorded events.
CUFORGE_API float elapsed_ms(const event& start, const event& end);

}  // namespace cuforge
