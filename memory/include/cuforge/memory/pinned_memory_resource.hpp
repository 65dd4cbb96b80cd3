#pragma once

/// @file
/// Page-locked host memory, optionally mapped into the devices' address space.

#include <cuforge/memory/memory_resource.hpp>
#include <cuforge/runtime/export.hpp>

#include <cstddef>
#include <string>

namespace cuforge::memory {

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

}  // namespace cuforge::memory
