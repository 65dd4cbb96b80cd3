#pragma once

/// @file
/// Streams. A stream_view names a stream without owning it and is what every
/// stream-ordered call takes; a stream owns one it created. The special
/// handles are the driver's on both backends: 0x1 is the legacy default
/// stream, 0x2 the per-thread default stream.
///
/// Ordering rules (both backends): work on one stream runs in order; the
/// legacy default stream waits for all prior work on the device's blocking
/// streams and they wait for it; non-blocking streams never synchronise with
/// it; the per-thread default stream behaves as a blocking stream private to
/// its host thread.

#include <cuforge/runtime/export.hpp>

#include <cstdint>
#include <functional>
#include <utility>

namespace cuforge {

class event;

/// @brief A non-owning, trivially copyable reference to a stream.
class CUFORGE_API stream_view {
 public:
  static constexpr std::uintptr_t legacy_handle = 0x1;
  static constexpr std::uintptr_t per_thread_handle = 0x2;

  /// @brief The legacy default stream of the current device.
  constexpr stream_view() noexcept = default;
  // `stream = 0` must not compile: say which default stream you mean.
  stream_view(int) = delete;
  stream_view(std::nullptr_t) = delete;

  static constexpr stream_view legacy_default(int device = -1) noexcept {
    return stream_view(legacy_handle, device);
  }
  static constexpr stream_view per_thread_default(int device = -1) noexcept {
    return stream_view(per_thread_handle, device);
  }
  /// @brief A stream made elsewhere (a CUstream on the cuda backend, a
  /// handle of this library's on the cpu backend). 0 means legacy default.
  /// @throws cuda_error CUDA_ERROR_INVALID_HANDLE on the cpu backend when the
  ///         handle is not a live stream.
  static stream_view from_handle(std::uintptr_t handle, int device = -1);

  std::uintptr_t handle() const noexcept { return handle_; }
  /// @brief The device the stream belongs to (the current device for the
  /// default streams when none was named).
  int device() const;
  bool is_legacy_default() const noexcept { return handle_ == legacy_handle; }
  bool is_per_thread_default() const noexcept { return handle_ == per_thread_handle; }
  bool is_default() const noexcept { return is_legacy_default() || is_per_thread_default(); }

  /// @brief Blocks until all work queued so far has completed.
  /// @throws cuda_error carrying an earlier asynchronous failure.
  void synchronize() const;
  /// @brief True when all work queued so far has completed.
  bool is_idle() const;
  /// @brief Work queued after this call waits for `e`'s last record.
  void wait(const event& e) const;
  /// @brief Runs `fn` on a host thread once prior work completes; later work
  /// waits for it. `fn` must not wait for the device: a synchronize, event
  /// wait or blocking copy inside it would wait for `fn` itself, and is
  /// refused (on_callback_thread) with the driver's CUDA_ERROR_NOT_PERMITTED.
  void add_callback(std::function<void()> fn) const;
  int priority() const;
  bool is_non_blocking() const;

  friend bool operator==(stream_view a, stream_view b) noexcept {
    return a.handle_ == b.handle_ && a.device_ == b.device_;
  }

 private:
  constexpr stream_view(std::uintptr_t handle, int device) noexcept
      : handle_(handle), device_(device) {}
  std::uintptr_t handle_ = legacy_handle;
  int device_ = -1;
  friend class stream;
};

struct stream_options {
  int priority = 0;  ///< lower numbers are higher priority; clamped to the device's range
  bool non_blocking = false;
};

/// @brief An owned stream, destroyed with its owner (work already queued
/// still runs to completion).
class CUFORGE_API stream {
 public:
  using options = stream_options;

  /// @brief Creates a stream on `device` (-1: the current device).
  explicit stream(options opts = {}, int device = -1);
  ~stream();
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;
  stream(stream&& other) noexcept;
  stream& operator=(stream&& other) noexcept;

  stream_view view() const noexcept { return view_; }
  operator stream_view() const noexcept { return view_; }  // NOLINT: a stream is usable where a view is
  std::uintptr_t handle() const noexcept { return view_.handle(); }
  std::uint64_t generation() const noexcept { return generation_; }

  // As the view's, after checking that the stream outlived no close().
  void synchronize() const;
  bool is_idle() const;
  void wait(const event& e) const;
  void add_callback(std::function<void()> fn) const;

  /// @brief The priority range of the device: {least, greatest}, where the
  /// greatest priority is the numerically smallest value.
  static std::pair<int, int> priority_range(int device = -1);

 private:
  void reset() noexcept;
  stream_view view_;
  std::uint64_t generation_ = 0;
};

}  // namespace cuforge
