#pragma once

/// @file
/// The owner of one block of memory, shared by every array (and view) over
/// it. When the last owner lets go, the block goes back to its resource
/// through deferred deallocation (deallocation.hpp): batched, and only after
/// the device has finished the work queued before, so memory an array was
/// used with on any stream is never reused under that work.

#include <cuforge/memory/memory_resource.hpp>
#include <cuforge/runtime/export.hpp>
#include <cuforge/runtime/stream.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

namespace cuforge::memory {

class CUFORGE_API allocation {
 public:
  /// @brief `bytes` from `mr` in `stream`'s order. On out-of-memory, pending
  /// deallocations are flushed and the pool trimmed, then it tries once more.
  /// @throws out_of_memory naming the size when that fails too.
  static std::shared_ptr<allocation> make(std::shared_ptr<memory_resource> mr, std::size_t bytes,
                                          stream_view stream = {});
  /// @brief Device memory of `device` from its current resource.
  static std::shared_ptr<allocation> device(std::size_t bytes, stream_view stream = {});

  /// @brief Memory owned by someone else (a foreign array, registered host
  /// memory): `release` runs, once, when the last owner goes; an empty
  /// `release` makes a non-owning view. The release waits for the work
  /// queued so far (the deallocation queue), unless `prompt`: for memory
  /// whose owner orders its reuse after that work itself (a foreign
  /// allocator on the stream the work was queued on).
  static std::shared_ptr<allocation> adopt(void* data, std::size_t bytes, memory_kind kind, int device,
                                           std::function<void()> release, void* host_data = nullptr,
                                           bool prompt = false);

  /// @brief Page-locks `bytes` at `host` in place for the owner's lifetime
  /// (cuMemHostRegister); `mapped` makes it device-visible too.
  static std::shared_ptr<allocation> register_host(void* host, std::size_t bytes, bool mapped);

  /// @brief How many allocations made by make() (not adopted or
  /// registered memory) of `kind` are alive: what an external memory
  /// manager must not be swapped under.
  static std::size_t live(memory_kind kind) noexcept;

  ~allocation();
  allocation(const allocation&) = delete;
  allocation& operator=(const allocation&) = delete;

  /// The address kernels use (for mapped memory, the device-side address).
  void* data() const noexcept { return data_; }
  /// The host address of host-visible memory (pinned, mapped, managed,
  /// registered); nullptr for device memory.
  void* host_data() const noexcept { return host_data_; }
  std::size_t size() const noexcept { return bytes_; }
  memory_kind kind() const noexcept { return kind_; }
  int device() const noexcept { return device_; }
  std::uint64_t generation() const noexcept { return generation_; }
  const std::shared_ptr<memory_resource>& resource() const noexcept { return mr_; }

  /// The stream it was allocated on (its memory is usable in that
  /// stream's order; see memory_resource.hpp).
  stream_view stream() const noexcept { return stream_; }

 private:
  allocation() = default;
  void* data_ = nullptr;
  void* host_data_ = nullptr;
  std::size_t bytes_ = 0;
  memory_kind kind_ = memory_kind::device;
  int device_ = 0;
  std::uint64_t generation_ = 0;
  std::shared_ptr<memory_resource> mr_;
  stream_view stream_;
  std::function<void()> release_;
  bool prompt_release_ = false;
  bool counted_ = false;  ///< made by make(): in live()'s count
};

}  // namespace cuforge::memory
