#pragma once

/// @file
/// Unified (managed) memory.

#include <cuforge/memory/memory_resource.hpp>
#include <cuforge/runtime/export.hpp>

#include <cstddef>
#include <string>

namespace cuforge::memory {

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

}  // namespace cuforge::memory
