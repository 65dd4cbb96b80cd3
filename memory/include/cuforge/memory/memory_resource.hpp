#pragma once

/// @file
/// The stream-ordered allocation interface every resource implements (one
/// header each: device_memory_resource.hpp, pool_memory_resource.hpp,
/// pinned_memory_resource.hpp, managed_memory_resource.hpp; adaptors over
/// an upstream: statistics_resource_adaptor.hpp), and which resource serves
/// each device (current_resource.hpp).
///
/// A resource hands out memory usable in the order of the stream it was
/// allocated on, and takes it back in the order of the stream it is freed
/// on. Cross-stream rule: memory allocated on stream A and freed on stream B
/// is the caller's to order: B must not reach the free before A's last use
/// (record an event on A, make B wait on it). Resources without stream
/// ordering (plain device memory, host memory) synchronise as the driver
/// does and accept any stream.

#include <cuforge/runtime/export.hpp>
#include <cuforge/runtime/memory_ops.hpp>
#include <cuforge/runtime/stream.hpp>

#include <cstddef>
#include <memory>
#include <string>

namespace cuforge::memory {

class CUFORGE_API memory_resource {
 public:
  virtual ~memory_resource() = default;

  /// @brief At least `bytes` bytes (256-byte aligned for device memory),
  /// usable in `stream`'s order. Zero bytes give nullptr.
  /// @throws out_of_memory naming the size.
  void* allocate(std::size_t bytes, stream_view stream = {});
  /// @brief Returns `p` (from allocate(bytes)) in `stream`'s order. Never throws.
  void deallocate(void* p, std::size_t bytes, stream_view stream = {}) noexcept;

  bool is_equal(const memory_resource& other) const noexcept { return do_is_equal(other); }
  /// What the resource's pointers point to.
  virtual memory_kind kind() const noexcept = 0;
  /// The device it allocates for (host resources: the device current when made).
  virtual int device() const noexcept = 0;
  /// A short name for messages and repr ("pool", "device", "pinned", ...).
  virtual std::string name() const = 0;

 private:
  virtual void* do_allocate(std::size_t bytes, stream_view stream) = 0;
  virtual void do_deallocate(void* p, std::size_t bytes, stream_view stream) noexcept = 0;
  virtual bool do_is_equal(const memory_resource& other) const noexcept { return this == &other; }
};

}  // namespace cuforge::memory
