#pragma once

/// @file
/// The runtime's raw memory operations, one per driver facility, on the
/// active backend. The memory layer (cuforge::memory) builds resources,
/// owners and deferred deallocation on these; most code wants that layer.

#include <cuforge/runtime/export.hpp>
#include <cuforge/runtime/stream.hpp>

#include <cstddef>
#include <string>
#include <cstdint>
#include <optional>
#include <utility>

namespace cuforge {

/// What a pointer refers to.
enum class memory_kind {
  device,      ///< device memory (cuMemAlloc, or a stream-ordered pool)
  pinned,      ///< page-locked host memory (cuMemHostAlloc)
  mapped,      ///< page-locked host memory mapped into the device's space
  managed,     ///< unified memory (cuMemAllocManaged)
  registered,  ///< existing host memory page-locked in place (cuMemHostRegister)
  pageable,    ///< ordinary host memory the runtime knows nothing about
};

CUFORGE_API const char* to_string(memory_kind k) noexcept;

namespace mem {

/// @throws out_of_memory naming the size when the device cannot satisfy it.
CUFORGE_API void* alloc_device(std::size_t bytes, int device);
CUFORGE_API void free_device(void* p, int device) noexcept;

/// Stream-ordered allocation from the device's default memory pool.
CUFORGE_API bool pools_supported(int device);
CUFORGE_API void* alloc_async(std::size_t bytes, stream_view s);
CUFORGE_API void free_async(void* p, stream_view s);
/// Keeps up to `bytes` cached in the pool across synchronisations.
CUFORGE_API void pool_set_release_threshold(int device, std::uint64_t bytes);
/// Returns cached pool memory to the system, keeping at most `keep` bytes.
CUFORGE_API void pool_trim(int device, std::size_t keep);

/// @param mapped also map it into every device's address space
CUFORGE_API void* alloc_pinned(std::size_t bytes, bool mapped);
CUFORGE_API void free_pinned(void* p) noexcept;
/// The device address of mapped host memory.
CUFORGE_API void* device_pointer_of_mapped(void* host);

/// @param global attach to every stream (CU_MEM_ATTACH_GLOBAL)
CUFORGE_API void* alloc_managed(std::size_t bytes, int device, bool global = true);
CUFORGE_API void free_managed(void* p) noexcept;

/// Page-locks existing host memory in place.
CUFORGE_API void host_register(void* p, std::size_t bytes, bool mapped);
CUFORGE_API void host_unregister(void* p) noexcept;

/// @brief Copies `bytes` in `s`'s order, any direction (unified addressing).
/// As with the driver, a copy touching pageable host memory has finished
/// with the host buffer when this returns.
CUFORGE_API void copy(void* dst, const void* src, std::size_t bytes, stream_view s);
/// @brief copy() followed by waiting for it.
CUFORGE_API void copy_sync(void* dst, const void* src, std::size_t bytes, stream_view s);
/// @brief A copy between host and device memory (one side each), as
/// copy_sync() waits for it, except that on the legacy default stream it is
/// the driver's synchronous copy (numba's transfers): a pageable source is
/// staged when it returns, its DMA ordered before later work in that stream
/// and blocking streams, without a stream synchronize's round trip.
CUFORGE_API void copy_host_sync(void* dst, const void* src, std::size_t bytes, stream_view s);
/// @brief Fills `count` elements of `elem_bytes` (1, 2 or 4) with `value`.
CUFORGE_API void fill(void* dst, std::uint32_t value, unsigned elem_bytes, std::size_t count,
                      stream_view s);

/// What another process needs to map the device allocation holding an
/// address: the backend's handle to the whole allocation, its size, and
/// where the address lies in it.
struct ipc_export_info {
  std::string handle;       ///< opaque; starts with the backend's tag
  std::size_t bytes = 0;    ///< the whole allocation's size
  std::size_t offset = 0;   ///< of the address from the allocation's start
  int device = 0;
};
/// @brief Exports the device allocation containing `p` for other processes
/// (cuIpcGetMemHandle on the driver; a shared-memory file on the cpu
/// backend). @throws cuda_error when `p` is not device memory of this
/// runtime, or cannot be shared (memory of a stream-ordered pool on the driver).
CUFORGE_API ipc_export_info ipc_export(const void* p);
/// @brief Maps into this process the allocation `handle` names (from
/// ipc_export in another process), on device `device` (-1: current).
/// @throws cuda_error when the handle is not one, belongs to this process,
///         or its memory was freed or its process ended.
CUFORGE_API void* ipc_open(const std::string& handle, int device = -1);
/// @brief Unmaps what ipc_open returned.
CUFORGE_API void ipc_close(void* p, int device = -1);

/// @brief What `p` points into, as the backend sees it.
CUFORGE_API memory_kind kind_of(const void* p);

/// @brief The allocation containing `p`: its start and size, when the
/// backend knows it (memory from this runtime, or the driver's pointer
/// records); nullopt for memory it knows nothing about.
CUFORGE_API std::optional<std::pair<const void*, std::size_t>> range_of(const void* p);

/// @brief The device whose memory `p` points into: -1 when the backend
/// does not know it, or for host memory every device can reach.
CUFORGE_API int device_of(const void* p);

/// @brief range_of, device_of and kind_of in one look-up (one driver call
/// on a GPU).
struct allocation_info {
  const void* start;
  std::size_t bytes;
  int device;  ///< -1: host memory every device reaches
  memory_kind kind;
};
CUFORGE_API std::optional<allocation_info> allocation_of(const void* p);

}  // namespace mem
}  // namespace cuforge
