#pragma once

/// @file
/// Stream-ordered device memory from the device's default pool (cuMemAllocAsync).

#include <cuforge/memory/memory_resource.hpp>
#include <cuforge/runtime/export.hpp>

#include <cstddef>
#include <string>

namespace cuforge::memory {

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

}  // namespace cuforge::memory
