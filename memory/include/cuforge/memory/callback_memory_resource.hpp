#pragma once

/// @file
/// A resource whose allocations are made by someone else's functions: the
/// adaptor an external memory manager plugs in through (a Python plugin
/// class, an RMM memory resource, a C++ allocator of the caller's own).

#include <cuforge/memory/memory_resource.hpp>
#include <cuforge/runtime/export.hpp>

#include <cstddef>
#include <functional>
#include <string>

namespace cuforge::memory {

/// @brief Serves every allocation by calling `allocate_fn(bytes, stream)`
/// and every free by `deallocate_fn(p, bytes, stream)`.
///
/// What the functions hand out is checked: nullptr for a non-empty request
/// and an address that is not 16-byte aligned (device code loads vectors of
/// 16 bytes) are refused with logic_error naming the resource, and the
/// memory goes straight back. An exception thrown by `allocate_fn` reaches
/// the caller unchanged; one thrown by `deallocate_fn` is reported on stderr
/// (a free never throws).
class CUFORGE_API callback_memory_resource final : public memory_resource {
 public:
  using allocate_fn = std::function<void*(std::size_t bytes, stream_view stream)>;
  using deallocate_fn = std::function<void(void* p, std::size_t bytes, stream_view stream)>;

  /// @param kind what the pointers point to (device memory, or pinned /
  ///        mapped host memory for a host-side manager).
  /// @param device the device it allocates for.
  /// @param name for messages and repr, such as "plugin(RMMNumbaManager)".
  callback_memory_resource(allocate_fn allocate, deallocate_fn deallocate, memory_kind kind, int device,
                           std::string name);

  memory_kind kind() const noexcept override { return kind_; }
  int device() const noexcept override { return device_; }
  std::string name() const override { return name_; }

 private:
  void* do_allocate(std::size_t bytes, stream_view stream) override;
  void do_deallocate(void* p, std::size_t bytes, stream_view stream) noexcept override;

  allocate_fn allocate_;
  deallocate_fn deallocate_;
  memory_kind kind_;
  int device_;
  std::string name_;
};

}  // namespace cuforge::memory
