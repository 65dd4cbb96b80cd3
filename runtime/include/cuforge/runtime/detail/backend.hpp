#pragma once

/// @file
/// The interface both backends implement (runtime/src/cuda, runtime/src/cpu).
/// Everything that depends on which backend is active lives behind it; the
/// public classes are thin RAII owners over these calls. Handles are opaque
/// integers: CUstream/CUevent/CUmodule/CUfunction on the cuda backend,
/// pointers to the cpu backend's own objects there. Every `dev` argument is
/// a valid ordinal: the callers resolve -1 to the current device.

#include <cuforge/runtime/backend.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/launch.hpp>
#include <cuforge/runtime/memory_ops.hpp>
#include <cuforge/runtime/module.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace cuforge::detail {

using handle = std::uintptr_t;

struct device_properties {
  std::string name;
  compute_capability cc;
  std::size_t total_memory = 0;
  std::string uuid;
  std::string pci_bus_id;
};

class backend {
 public:
  virtual ~backend() = default;
  virtual backend_kind kind() const noexcept = 0;
  /// What code above the runtime asks of it (backend.hpp): its kernel format, whether its memory is the host's.
  virtual const backend_traits& traits() const noexcept = 0;
  virtual int driver_version() const noexcept = 0;

  // Devices and contexts.
  virtual int device_count() = 0;
  virtual device_properties properties(int dev) = 0;
  virtual int attribute(int dev, int cu_attribute) = 0;
  virtual memory_info mem_info(int dev) = 0;
  /// Makes dev's primary context current on this thread (retaining it).
  virtual void activate(int dev) = 0;
  virtual void device_synchronize(int dev) = 0;
  /// Whether all work on `dev` has completed, when the backend can tell without waiting (the
  /// driver cannot: cuCtxSynchronize has no query); nullopt when it cannot.
  virtual std::optional<bool> device_idle(int /*dev*/) { return std::nullopt; }
  /// Releases every context; handles made before become dangling, which the
  /// generation check in the public classes guards against.
  virtual void close_all() = 0;
  /// Whether close_all() also released every allocation (a context reset
  /// does on the driver); if not, owners still free their memory afterwards.
  virtual bool close_frees_memory() const noexcept { return true; }

  // Memory.
  virtual void* alloc(memory_kind kind, std::size_t bytes, int dev) = 0;
  virtual void free(memory_kind kind, void* p, int dev) noexcept = 0;
  virtual bool pools_supported(int dev) = 0;
  virtual void* alloc_async(std::size_t bytes, handle stream, int dev) = 0;
  virtual void free_async(void* p, handle stream, int dev) = 0;
  virtual void pool_set_release_threshold(int dev, std::uint64_t bytes) = 0;
  virtual void pool_trim(int dev, std::size_t keep) = 0;
  virtual void* mapped_device_pointer(void* host) = 0;
  virtual void host_register(void* p, std::size_t bytes, bool mapped) = 0;
  virtual void host_unregister(void* p) noexcept = 0;
  virtual void copy(void* dst, const void* src, std::size_t bytes, handle stream, int dev) = 0;
  /// A copy between host and device memory, done when this returns (a
  /// pageable source: staged), ordered in `stream`.
  virtual void copy_host_sync(void* dst, const void* src, std::size_t bytes, handle stream, int dev) {
    copy(dst, src, bytes, stream, dev);
    stream_synchronize(stream, dev);
  }
  virtual void fill(void* dst, std::uint32_t value, unsigned elem_bytes, std::size_t count,
                    handle stream, int dev) = 0;
  virtual memory_kind kind_of(const void* p) = 0;
  /// The allocation containing `p`, when the backend knows it: its start,
  /// size, device (-1 for host memory every device can reach) and kind
  /// (what kind_of(p) says), in one look-up.
  struct address_info {
    std::uintptr_t start = 0;
    std::size_t bytes = 0;
    int device = -1;
    memory_kind kind = memory_kind::pageable;
  };
  virtual std::optional<address_info> address_range(const void* p) = 0;

  // Inter-process sharing of device memory (mem::ipc_export / ipc_open).
  /// The backend's handle to the device allocation starting at `base`
  /// (`bytes` long, from address_range): bytes another process gives to
  /// ipc_open. Throws cuda_error naming why the memory cannot be shared.
  virtual std::string ipc_export(void* base, std::size_t bytes, int dev) = 0;
  /// Maps the allocation a handle from another process names; throws
  /// cuda_error (freed, foreign, made here, of another backend).
  virtual void* ipc_open(const std::string& handle, int dev) = 0;
  virtual void ipc_close(void* p, int dev) = 0;

  // Streams. `stream` may be 0x1 (legacy) or 0x2 (per-thread) anywhere.
  virtual handle stream_create(int dev, int priority, bool non_blocking) = 0;
  virtual void stream_destroy(handle stream, int dev) noexcept = 0;
  virtual void stream_synchronize(handle stream, int dev) = 0;
  virtual bool stream_query(handle stream, int dev) = 0;
  virtual void stream_wait_event(handle stream, handle event, int dev) = 0;
  virtual void stream_add_callback(handle stream, std::function<void()> fn, int dev) = 0;
  virtual int stream_priority(handle stream, int dev) = 0;
  virtual bool stream_non_blocking(handle stream, int dev) = 0;
  virtual std::pair<int, int> priority_range(int dev) = 0;
  /// The device of a stream handle made elsewhere; throws for one that is
  /// not a live stream (where the backend can tell).
  virtual int stream_device(handle stream) = 0;

  // Events.
  virtual handle event_create(int dev, bool timing, bool blocking_sync) = 0;
  virtual void event_destroy(handle event, int dev) noexcept = 0;
  virtual void event_record(handle event, handle stream, int dev) = 0;
  virtual bool event_query(handle event, int dev) = 0;
  virtual void event_synchronize(handle event, int dev) = 0;
  virtual float event_elapsed_ms(handle start, handle end, int dev) = 0;

  // Modules and launch.
  /// Loads the part of `image` this backend runs; fills `info_log`.
  virtual handle module_load(const module_image& image, const module::options& opts, int dev,
                             std::string& info_log) = 0;
  virtual void module_unload(handle module, int dev) noexcept = 0;
  /// Throws cuda_error CUDA_ERROR_NOT_FOUND naming the kernel.
  virtual handle module_get_kernel(handle module, std::string_view name, int dev) = 0;
  virtual kernel_attributes kernel_attrs(handle kernel, int dev) = 0;
  virtual void kernel_set_max_dynamic_shared(handle kernel, int bytes, int dev) = 0;
  /// The largest grid a cooperative launch of this shape may use.
  virtual unsigned long long max_cooperative_blocks(handle kernel, dim3 block,
                                                    std::size_t shared_bytes, int dev) = 0;
  virtual void launch(handle kernel, const launch_config& cfg, void** params, int dev) = 0;

  virtual void profiler_start() = 0;
  virtual void profiler_stop() = 0;
};

/// Marks the current thread as running stream work or a host callback for
/// its lifetime (see on_callback_thread()). Backends put one around each.
class CUFORGE_API callback_scope {
 public:
  callback_scope() noexcept;
  ~callback_scope();
  callback_scope(const callback_scope&) = delete;
  callback_scope& operator=(const callback_scope&) = delete;

 private:
  bool previous_;
};

/// The active backend, selected on first call (see backend.hpp).
CUFORGE_API backend& active();

/// Resolves -1 to the calling thread's current device and checks the range.
CUFORGE_API int resolve_device(int dev);

}  // namespace cuforge::detail
