#pragma once

/// @file
/// Device memory from cuMemAlloc: not stream-ordered (the driver synchronises).

#include <cuforge/memory/memory_resource.hpp>
#include <cuforge/runtime/export.hpp>

#include <cstddef>
#include <string>

namespace cuforge::memory {

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

}  // namespace cuforge::memory
