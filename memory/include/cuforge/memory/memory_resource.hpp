#pragma once

/// @file
/// The stream-ordered allocation interface and the resources behind it.
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

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
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

/// cuMemAlloc / cuMemFree: device memory, not stream-ordered.
class CUFORGE_API device_memory_resource final : public memory_resource {
 public:
  explicit device_memory_resource(int device = -1);
  memory_kind kind() const noexcept override { return memory_kind::device; }
  int device() const noexcept override { return device_; }
  std::string name() const override { return "device"; }

 private:
  void* do_allocate(std::size_t bytes, stream_view stream) override;
  void do_deallocate(void* p, std::size_t bytes, stream_view stream) noexcept override;
  int device_;
};

/// Stream-ordered allocations from the device's default memory pool
/// (cuMemAllocAsync). Freed memory stays cached in the pool across
/// synchronisations; trim() returns it.
class CUFORGE_API pool_memory_resource final : public memory_resource {
 public:
  explicit pool_memory_resource(int device = -1);
  memory_kind kind() const noexcept override { return memory_kind::device; }
  int device() const noexcept override { return device_; }
  std::string name() const override { return "pool"; }
  /// Returns cached memory to the system, keeping at most `keep` bytes.
  void trim(std::size_t keep = 0);

 private:
  void* do_allocate(std::size_t bytes, stream_view stream) override;
  void do_deallocate(void* p, std::size_t bytes, stream_view stream) noexcept override;
  int device_;
};

/// Page-locked host memory (cuMemHostAlloc); `mapped` also maps it into the
/// devices' address space.
class CUFORGE_API pinned_memory_resource final : public memory_resource {
 public:
  explicit pinned_memory_resource(bool mapped = false);
  memory_kind kind() const noexcept override { return mapped_ ? memory_kind::mapped : memory_kind::pinned; }
  int device() const noexcept override { return device_; }
  std::string name() const override { return mapped_ ? "mapped" : "pinned"; }

 private:
  void* do_allocate(std::size_t bytes, stream_view stream) override;
  void do_deallocate(void* p, std::size_t bytes, stream_view stream) noexcept override;
  bool mapped_;
  int device_;
};

/// Unified memory (cuMemAllocManaged, attached globally).
class CUFORGE_API managed_memory_resource final : public memory_resource {
 public:
  explicit managed_memory_resource(int device = -1);
  memory_kind kind() const noexcept override { return memory_kind::managed; }
  int device() const noexcept override { return device_; }
  std::string name() const override { return "managed"; }

 private:
  void* do_allocate(std::size_t bytes, stream_view stream) override;
  void do_deallocate(void* p, std::size_t bytes, stream_view stream) noexcept override;
  int device_;
};

/// @brief Counts what passes through an upstream resource: the adaptor tests
/// and users read to see that memory really went back.
class CUFORGE_API statistics_resource_adaptor final : public memory_resource {
 public:
  struct counters {
    std::size_t current_bytes = 0, peak_bytes = 0, total_bytes = 0;
    std::size_t current_count = 0, peak_count = 0, total_count = 0;
  };
  explicit statistics_resource_adaptor(std::shared_ptr<memory_resource> upstream);
  counters stats() const;
  memory_kind kind() const noexcept override { return upstream_->kind(); }
  int device() const noexcept override { return upstream_->device(); }
  std::string name() const override { return "statistics(" + upstream_->name() + ")"; }
  const std::shared_ptr<memory_resource>& upstream() const noexcept { return upstream_; }

 private:
  void* do_allocate(std::size_t bytes, stream_view stream) override;
  void do_deallocate(void* p, std::size_t bytes, stream_view stream) noexcept override;
  std::shared_ptr<memory_resource> upstream_;
  mutable std::mutex m_;
  counters c_;
};

/// @brief The resource device allocations use on `device` (-1: current):
/// the stream-ordered pool where the device supports pools, else plain
/// device memory; CUFORGE_MEMORY_RESOURCE=device|pool overrides.
CUFORGE_API std::shared_ptr<memory_resource> current_resource(int device = -1);
/// @brief Replaces it (an external memory manager plugs in here). nullptr
/// restores the default.
CUFORGE_API void set_current_resource(std::shared_ptr<memory_resource> mr, int device = -1);

/// Shared host-side resources (device-independent).
CUFORGE_API std::shared_ptr<memory_resource> pinned_resource();
CUFORGE_API std::shared_ptr<memory_resource> mapped_resource();
CUFORGE_API std::shared_ptr<memory_resource> managed_resource(int device = -1);

}  // namespace cuforge::memory
