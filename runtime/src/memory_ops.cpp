// The raw memory operations: argument checks, then the active backend.
#include "status.hpp"

#include <cuforge/runtime/detail/backend.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/memory_ops.hpp>

namespace cuforge {

const char* to_string(memory_kind k) noexcept {
  switch (k) {
    case memory_kind::device: return "device";
    case memory_kind::pinned: return "pinned host";
    case memory_kind::mapped: return "mapped host";
    case memory_kind::managed: return "managed";
    case memory_kind::registered: return "registered host";
    case memory_kind::pageable: return "pageable host";
  }
  return "unknown";
}

namespace mem {

using detail::active;
using detail::resolve_device;

void* alloc_device(std::size_t bytes, int device) {
  return active().alloc(memory_kind::device, bytes, resolve_device(device));
}
void free_device(void* p, int device) noexcept {
  if (p) active().free(memory_kind::device, p, device < 0 ? 0 : device);
}

bool pools_supported(int device) { return active().pools_supported(resolve_device(device)); }
void* alloc_async(std::size_t bytes, stream_view s) {
  return active().alloc_async(bytes, s.handle(), s.device());
}
void free_async(void* p, stream_view s) {
  if (p) active().free_async(p, s.handle(), s.device());
}
void pool_set_release_threshold(int device, std::uint64_t bytes) {
  active().pool_set_release_threshold(resolve_device(device), bytes);
}
void pool_trim(int device, std::size_t keep) { active().pool_trim(resolve_device(device), keep); }

void* alloc_pinned(std::size_t bytes, bool mapped) {
  return active().alloc(mapped ? memory_kind::mapped : memory_kind::pinned, bytes, resolve_device(-1));
}
void free_pinned(void* p) noexcept {
  if (p) active().free(memory_kind::pinned, p, 0);
}
void* device_pointer_of_mapped(void* host) { return active().mapped_device_pointer(host); }

void* alloc_managed(std::size_t bytes, int device, bool global) {
  (void)global;  // attach-global is the only mode the backends offer today
  return active().alloc(memory_kind::managed, bytes, resolve_device(device));
}
void free_managed(void* p) noexcept {
  if (p) active().free(memory_kind::managed, p, 0);
}

void host_register(void* p, std::size_t bytes, bool mapped) {
  CUFORGE_EXPECTS(p != nullptr, "cannot register a null pointer");
  CUFORGE_EXPECTS(bytes > 0, "cannot register an empty range");
  active().host_register(p, bytes, mapped);
}
void host_unregister(void* p) noexcept {
  if (p) active().host_unregister(p);
}

void copy(void* dst, const void* src, std::size_t bytes, stream_view s) {
  if (bytes == 0) return;
  CUFORGE_EXPECTS(dst != nullptr && src != nullptr, "copy with a null pointer");
  active().copy(dst, src, bytes, s.handle(), s.device());
}

void copy_sync(void* dst, const void* src, std::size_t bytes, stream_view s) {
  detail::refuse_wait_in_callback("a blocking copy");  // before queuing a copy nobody could wait for
  copy(dst, src, bytes, s);
  s.synchronize();
}

void copy_host_sync(void* dst, const void* src, std::size_t bytes, stream_view s) {
  if (bytes == 0) return;
  detail::refuse_wait_in_callback("a blocking copy");
  CUFORGE_EXPECTS(dst != nullptr && src != nullptr, "copy with a null pointer");
  active().copy_host_sync(dst, src, bytes, s.handle(), s.device());
}

void fill(void* dst, std::uint32_t value, unsigned elem_bytes, std::size_t count, stream_view s) {
  CUFORGE_EXPECTS(elem_bytes == 1 || elem_bytes == 2 || elem_bytes == 4,
                  "fill works on 1-, 2- or 4-byte elements");
  if (count == 0) return;
  CUFORGE_EXPECTS(dst != nullptr, "fill of a null pointer");
  active().fill(dst, value, elem_bytes, count, s.handle(), s.device());
}

memory_kind kind_of(const void* p) { return active().kind_of(p); }

std::optional<std::pair<const void*, std::size_t>> range_of(const void* p) {
  if (!p) return std::nullopt;
  auto r = active().address_range(p);
  if (!r) return std::nullopt;
  return std::pair{reinterpret_cast<const void*>(r->start), r->bytes};
}

int device_of(const void* p) {
  if (!p) return -1;
  auto r = active().address_range(p);
  return r ? r->device : -1;
}

std::optional<allocation_info> allocation_of(const void* p) {
  if (!p) return std::nullopt;
  auto r = active().address_range(p);
  if (!r) return std::nullopt;
  return allocation_info{reinterpret_cast<const void*>(r->start), r->bytes, r->device, r->kind};
}

ipc_export_info ipc_export(const void* p) {
  CUFORGE_EXPECTS(p != nullptr, "ipc_export of a null pointer");
  auto r = active().address_range(p);
  if (!r || r->kind != memory_kind::device || r->device < 0)
    detail::raise(CUDA_ERROR_INVALID_VALUE, "only device memory can be shared with another process", "ipc_export");
  ipc_export_info info;
  info.bytes = r->bytes;
  info.offset = reinterpret_cast<std::uintptr_t>(p) - r->start;
  info.device = r->device;
  info.handle = active().ipc_export(reinterpret_cast<void*>(r->start), r->bytes, r->device);
  return info;
}

void* ipc_open(const std::string& handle, int device) {
  int dev = device < 0 ? cuforge::device::current().ordinal() : device;
  return active().ipc_open(handle, dev);
}

void ipc_close(void* p, int device) {
  CUFORGE_EXPECTS(p != nullptr, "ipc_close of a null pointer");
  int dev = device < 0 ? cuforge::device::current().ordinal() : device;
  active().ipc_close(p, dev);
}

}  // namespace mem
}  // namespace cuforge
