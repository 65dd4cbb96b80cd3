// The cuda backend: the backend interface over the CUDA driver API.
#include "backends.hpp"
#include "cuda/driver.hpp"
#include "status.hpp"

#include <cuforge/runtime/backend.hpp>
#include <cuforge/runtime/error.hpp>
#include <cuforge/runtime/host_parallel.hpp>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace cuforge::detail {
namespace {

using cuda::call_arg;
using cuda::drv;

CUstream as_stream(handle h) noexcept { return reinterpret_cast<CUstream>(h); }
CUevent as_event(handle h) noexcept { return reinterpret_cast<CUevent>(h); }
CUmodule as_module(handle h) noexcept { return reinterpret_cast<CUmodule>(h); }
CUfunction as_function(handle h) noexcept { return reinterpret_cast<CUfunction>(h); }
CUdeviceptr as_dptr(const void* p) noexcept { return reinterpret_cast<CUdeviceptr>(p); }
void* as_ptr(CUdeviceptr p) noexcept { return reinterpret_cast<void*>(p); }
template <class T>
handle as_handle(T* p) noexcept {
  return reinterpret_cast<handle>(p);
}

bool is_default_stream(handle h) noexcept {
  return h == 0 || h == reinterpret_cast<handle>(CU_STREAM_LEGACY) ||
         h == reinterpret_cast<handle>(CU_STREAM_PER_THREAD);
}

// An epoch names one (backend, set of retained contexts) pair for the whole
// process: close_all and every new backend take a fresh one, so a thread's
// cached context can never be mistaken for a live one, even by a backend
// allocated at the same address as a destroyed one.
std::atomic<std::uint64_t> next_epoch{1};

struct thread_context_cache {
  std::uint64_t epoch = 0;
  int dev = -1;
  CUcontext ctx = nullptr;
};
thread_local thread_context_cache this_thread;

// The driver calls this on one of its threads: nothing may escape into it.
void CUDA_CB run_host_callback(void* user) noexcept {
  // The driver forbids CUDA calls here: mark the thread so that nothing
  // (a deallocation batch, say) waits for the device from it.
  callback_scope scope;
  std::unique_ptr<std::function<void()>> fn(static_cast<std::function<void()>*>(user));
  try {
    (*fn)();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuforge: a stream callback threw (ignored): %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "cuforge: a stream callback threw a non-standard exception (ignored)\n");
  }
}

std::string format_uuid(const CUuuid& id) {
  const auto* b = reinterpret_cast<const unsigned char*>(id.bytes);
  char out[48];
  std::snprintf(out, sizeof out, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                b[15]);
  return out;
}

class cuda_backend final : public backend {
 public:
  explicit cuda_backend(const cuda_probe& probe)
      : version_(probe.driver_version), epoch_(next_epoch.fetch_add(1)) {
    devices_.resize(static_cast<std::size_t>(probe.device_count));
    for (int i = 0; i < probe.device_count; ++i)
      CUFORGE_CU(cuDeviceGet, (&devices_[i].cu, i), {"ordinal", i});
  }

  ~cuda_backend() override {
    // Release (not reset) our retains: other users of the primary contexts
    // in this process, the CUDA runtime say, keep theirs. Threads' cached
    // contexts carry this backend's epoch, which no other backend shares.
    for (auto& s : devices_) {
      if (s.ctx && s.stage && drv().cuCtxSetCurrent(s.ctx) == CUDA_SUCCESS) {
        for (int b = 0; b < 2; ++b) {  // best effort: the process may be ending
          (void)drv().cuEventDestroy(s.stage->done[b]);
          (void)drv().cuMemFreeHost(s.stage->buffer[b]);
        }
      }
      if (s.ctx)
        if (CUresult r = drv().cuDevicePrimaryCtxRelease(s.cu); r != CUDA_SUCCESS)
          cuda::report(r, "cuDevicePrimaryCtxRelease", {{"device", s.cu}});
    }
  }

  backend_kind kind() const noexcept override { return backend_kind::cuda; }
  const backend_traits& traits() const noexcept override {
    static constexpr backend_traits t{module_image::format::ptx, false};
    return t;
  }
  int driver_version() const noexcept override { return version_; }

  // ---- Devices and contexts ------------------------------------------------

  int device_count() override { return static_cast<int>(devices_.size()); }

  // Device queries need no context: listing devices must not create one on
  // every GPU (each costs device memory and shows in nvidia-smi).
  device_properties properties(int dev) override {
    std::lock_guard lock(mutex_);
    device_slot& s = slot(dev);
    if (!s.props) {
      device_properties p;
      char name[256] = {};
      CUFORGE_CU(cuDeviceGetName, (name, sizeof name, s.cu), {"device", dev});
      p.name = name;
      CUFORGE_CU(cuDeviceGetAttribute, (&p.cc.major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, s.cu),
                 {"device", dev});
      CUFORGE_CU(cuDeviceGetAttribute, (&p.cc.minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, s.cu),
                 {"device", dev});
      CUFORGE_CU(cuDeviceTotalMem, (&p.total_memory, s.cu), {"device", dev});
      CUuuid id{};
      CUFORGE_CU(cuDeviceGetUuid, (&id, s.cu), {"device", dev});
      p.uuid = format_uuid(id);
      char bus[32] = {};
      CUFORGE_CU(cuDeviceGetPCIBusId, (bus, sizeof bus, s.cu), {"device", dev});
      p.pci_bus_id = bus;
      s.props = std::move(p);  // a device's identity never changes: kept across close_all
    }
    return *s.props;
  }

  int attribute(int dev, int cu_attribute) override {
    int v = 0;
    CUFORGE_CU(cuDeviceGetAttribute, (&v, static_cast<CUdevice_attribute>(cu_attribute), cu(dev)),
               {"attribute", cu_attribute}, {"device", dev});
    return v;
  }

  memory_info mem_info(int dev) override {
    make_current(dev);
    std::size_t free_bytes = 0, total = 0;
    CUFORGE_CU(cuMemGetInfo, (&free_bytes, &total), {"device", dev});
    return {free_bytes, total};
  }

  void activate(int dev) override { make_current(dev); }

  void device_synchronize(int dev) override {
    make_current(dev);
    CUFORGE_CU(cuCtxSynchronize, (), {"device", dev});
  }

  void close_all() override {
    std::lock_guard lock(mutex_);
    epoch_.store(next_epoch.fetch_add(1), std::memory_order_release);
    CUresult first_failure = CUDA_SUCCESS;
    std::string failed_call;
    for (std::size_t i = 0; i < devices_.size(); ++i) {
      device_slot& s = devices_[i];
      if (!s.ctx) continue;
      // Reset destroys everything the context holds (memory included), as
      // numba's cuda.close() does; it does not drop our retain, so release
      // that too.
      CUresult r = drv().cuDevicePrimaryCtxReset(s.cu);
      if (r != CUDA_SUCCESS && first_failure == CUDA_SUCCESS) {
        first_failure = r;
        failed_call = cuda::describe("cuDevicePrimaryCtxReset", {{"device", i}});
      }
      r = drv().cuDevicePrimaryCtxRelease(s.cu);
      if (r != CUDA_SUCCESS && first_failure == CUDA_SUCCESS) {
        first_failure = r;
        failed_call = cuda::describe("cuDevicePrimaryCtxRelease", {{"device", i}});
      }
      s.ctx = nullptr;
      s.stage.reset();  // the reset freed its buffers and events
    }
    {
      std::lock_guard host_lock(host_mutex_);
      host_ranges_.clear();
    }
    if (first_failure != CUDA_SUCCESS) cuda::fail(first_failure, std::move(failed_call));
  }

  // ---- Memory --------------------------------------------------------------

  // Zero bytes gives nullptr: the driver rejects empty allocations, and a
  // null pointer is what frees and copies of nothing expect.
  void* alloc(memory_kind kind, std::size_t bytes, int dev) override {
    if (bytes == 0) return nullptr;
    make_current(dev);
    CUresult r = CUDA_SUCCESS;
    const char* fn = "";
    void* p = nullptr;
    switch (kind) {
      case memory_kind::device: {
        fn = "cuMemAlloc";
        CUdeviceptr dp = 0;
        r = drv().cuMemAlloc(&dp, bytes);
        p = as_ptr(dp);
        break;
      }
      case memory_kind::pinned:
      case memory_kind::mapped:
        fn = "cuMemHostAlloc";
        // Portable: usable from every context, as the memory layer shares
        // pinned buffers across devices.
        r = drv().cuMemHostAlloc(
            &p, bytes,
            CU_MEMHOSTALLOC_PORTABLE | (kind == memory_kind::mapped ? CU_MEMHOSTALLOC_DEVICEMAP : 0u));
        break;
      case memory_kind::managed: {
        fn = "cuMemAllocManaged";
        CUdeviceptr dp = 0;
        r = drv().cuMemAllocManaged(&dp, bytes, CU_MEM_ATTACH_GLOBAL);
        p = as_ptr(dp);
        break;
      }
      case memory_kind::registered:
      case memory_kind::pageable:
        throw logic_error(std::string("the cuda backend does not allocate ") + to_string(kind) +
                          " memory (register existing memory with host_register)");
    }
    if (r == CUDA_ERROR_OUT_OF_MEMORY) out_of_memory_error(bytes, kind, dev, fn);
    cuda::check(r, fn, {{"bytes", bytes}, {"device", dev}});
    if (kind == memory_kind::pinned || kind == memory_kind::mapped) remember_host(p, bytes, kind);
    return p;
  }

  void free(memory_kind kind, void* p, int dev) noexcept override {
    if (!p) return;
    try {
      make_current(dev);
      switch (kind) {
        case memory_kind::device:
        case memory_kind::managed:
          if (CUresult r = drv().cuMemFree(as_dptr(p)); r != CUDA_SUCCESS)
            cuda::report(r, "cuMemFree", {{"ptr", p}, {"device", dev}});
          return;
        case memory_kind::pinned:
        case memory_kind::mapped:
          forget_host(p);
          if (CUresult r = drv().cuMemFreeHost(p); r != CUDA_SUCCESS)
            cuda::report(r, "cuMemFreeHost", {{"ptr", p}});
          return;
        case memory_kind::registered:
        case memory_kind::pageable:
          std::fprintf(stderr, "cuforge: free of %s memory at %p ignored (not allocated by cuforge)\n",
                       to_string(kind), p);
          return;
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "cuforge: freeing %s memory at %p failed: %s\n", to_string(kind), p, e.what());
    } catch (...) {
      std::fprintf(stderr, "cuforge: freeing %s memory at %p failed\n", to_string(kind), p);
    }
  }

  bool pools_supported(int dev) override {
    return attribute(dev, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED) != 0;
  }

  void* alloc_async(std::size_t bytes, handle stream, int dev) override {
    if (bytes == 0) return nullptr;
    make_current(dev);
    CUmemoryPool pool = default_pool(dev);
    CUdeviceptr dp = 0;
    CUresult r = drv().cuMemAllocFromPoolAsync(&dp, bytes, pool, as_stream(stream));
    if (r == CUDA_ERROR_OUT_OF_MEMORY)
      throw out_of_memory(bytes, "device memory (stream-ordered pool) on device " + std::to_string(dev),
                          oom_detail(r, "cuMemAllocFromPoolAsync"));
    cuda::check(r, "cuMemAllocFromPoolAsync",
                {{"bytes", bytes}, {"stream", as_stream(stream)}, {"device", dev}});
    return as_ptr(dp);
  }

  void free_async(void* p, handle stream, int dev) override {
    if (!p) return;
    make_current(dev);
    CUFORGE_CU(cuMemFreeAsync, (as_dptr(p), as_stream(stream)), {"ptr", p}, {"stream", as_stream(stream)});
  }

  void pool_set_release_threshold(int dev, std::uint64_t bytes) override {
    make_current(dev);
    cuuint64_t value = bytes;
    CUFORGE_CU(cuMemPoolSetAttribute, (default_pool(dev), CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &value),
               {"attr", "CU_MEMPOOL_ATTR_RELEASE_THRESHOLD"}, {"bytes", bytes}, {"device", dev});
  }

  void pool_trim(int dev, std::size_t keep) override {
    make_current(dev);
    CUFORGE_CU(cuMemPoolTrimTo, (default_pool(dev), keep), {"keep", keep}, {"device", dev});
  }

  std::string ipc_export(void* base, std::size_t, int dev) override {
    make_current(dev);
    CUmemoryPool pool = nullptr;
    CUpointer_attribute attr = CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE;
    void* data[] = {&pool};
    if (drv().cuPointerGetAttributes(1, &attr, data, as_dptr(base)) == CUDA_SUCCESS && pool != nullptr)
      detail::raise(CUDA_ERROR_NOT_SUPPORTED,
                    "this memory comes from a stream-ordered pool (cuMemAllocAsync), which CUDA IPC cannot share; "
                    "allocate the arrays you share from plain device memory (CUFORGE_MEMORY_RESOURCE=device, or a "
                    "memory manager such as RMM's over cudaMalloc)",
                    "cuIpcGetMemHandle");
    CUipcMemHandle h{};
    CUFORGE_CU(cuIpcGetMemHandle, (&h, as_dptr(base)), {"ptr", base}, {"device", dev});
    static const char* digits = "0123456789abcdef";
    std::string out = "cuforge-cuda-ipc/1 ";
    for (unsigned char c : h.reserved) {
      out += digits[c >> 4];
      out += digits[c & 15];
    }
    return out;
  }

  void* ipc_open(const std::string& handle, int dev) override {
    const std::string tag = "cuforge-cuda-ipc/1 ";
    if (handle.rfind("cuforge-cpu-ipc/", 0) == 0)
      detail::raise(CUDA_ERROR_INVALID_HANDLE,
                    "the handle was made on the cpu backend; this process runs on a GPU (the cuda backend)",
                    "cuIpcOpenMemHandle");
    CUipcMemHandle h{};
    auto hex = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      return -1;
    };
    bool ok = handle.size() == tag.size() + 2 * sizeof h.reserved && handle.rfind(tag, 0) == 0;
    for (std::size_t i = 0; ok && i < sizeof h.reserved; ++i) {
      int hi = hex(handle[tag.size() + 2 * i]), lo = hex(handle[tag.size() + 2 * i + 1]);
      ok = hi >= 0 && lo >= 0;
      h.reserved[i] = static_cast<char>((hi << 4) | lo);
    }
    if (!ok)
      detail::raise(CUDA_ERROR_INVALID_HANDLE,
                    "this is not an IPC handle of cuforge's cuda backend (corrupted, or made by something else)",
                    "cuIpcOpenMemHandle");
    make_current(dev);
    CUdeviceptr dp = 0;
    CUFORGE_CU(cuIpcOpenMemHandle, (&dp, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), {"device", dev});
    return as_ptr(dp);
  }

  void ipc_close(void* p, int dev) override {
    make_current(dev);
    CUFORGE_CU(cuIpcCloseMemHandle, (as_dptr(p)), {"ptr", p});
  }

  void* mapped_device_pointer(void* host) override {
    make_current(current_device());
    CUdeviceptr dp = 0;
    CUFORGE_CU(cuMemHostGetDevicePointer, (&dp, host, 0), {"host", host});
    return as_ptr(dp);
  }

  void host_register(void* p, std::size_t bytes, bool mapped) override {
    make_current(current_device());
    unsigned flags = CU_MEMHOSTREGISTER_PORTABLE | (mapped ? CU_MEMHOSTREGISTER_DEVICEMAP : 0u);
    CUresult r = drv().cuMemHostRegister(p, bytes, flags);
    if (r == CUDA_ERROR_OUT_OF_MEMORY)
      throw out_of_memory(bytes, "registered (page-locked) host memory", oom_detail(r, "cuMemHostRegister"));
    cuda::check(r, "cuMemHostRegister", {{"ptr", p}, {"bytes", bytes}, {"flags", flags}});
    remember_host(p, bytes, memory_kind::registered);
  }

  void host_unregister(void* p) noexcept override {
    try {
      make_current(current_device());
      forget_host(p);
      if (CUresult r = drv().cuMemHostUnregister(p); r != CUDA_SUCCESS)
        cuda::report(r, "cuMemHostUnregister", {{"ptr", p}});
    } catch (const std::exception& e) {
      std::fprintf(stderr, "cuforge: unregistering host memory at %p failed: %s\n", p, e.what());
    } catch (...) {
      std::fprintf(stderr, "cuforge: unregistering host memory at %p failed\n", p);
    }
  }

  void copy(void* dst, const void* src, std::size_t bytes, handle stream, int dev) override {
    if (bytes == 0) return;
    make_current(dev);
    if (int direction = staged_direction(dst, src, bytes)) {
      staged_copy(dst, src, bytes, as_stream(stream), dev, direction == 1);
      return;
    }
    // Unified addressing: the driver infers every direction from the pointers.
    CUFORGE_CU(cuMemcpyAsync, (as_dptr(dst), as_dptr(src), bytes, as_stream(stream)), {"dst", dst},
               {"src", src}, {"bytes", bytes}, {"stream", as_stream(stream)});
  }

  void copy_host_sync(void* dst, const void* src, std::size_t bytes, handle stream, int dev) override {
    CUstream s = as_stream(stream);
    if (s != nullptr && s != CU_STREAM_LEGACY) {
      copy(dst, src, bytes, stream, dev);
      stream_synchronize(stream, dev);
      return;
    }
    if (bytes == 0) return;
    make_current(dev);
    if (int direction = staged_direction(dst, src, bytes)) {  // staged: done with the source on return
      staged_copy(dst, src, bytes, as_stream(stream), dev, direction == 1);
      return;
    }
    // The legacy stream: cuMemcpy returns once a pageable source is staged (numba-cuda's
    // to_device), 5.2 us for 8 bytes on an H200 against 7.0 us for cuMemcpyAsync and a synchronize.
    CUFORGE_CU(cuMemcpy, (as_dptr(dst), as_dptr(src), bytes), {"dst", dst}, {"src", src}, {"bytes", bytes});
  }

  void fill(void* dst, std::uint32_t value, unsigned elem_bytes, std::size_t count, handle stream,
            int dev) override {
    if (count == 0) return;
    make_current(dev);
    CUstream s = as_stream(stream);
    switch (elem_bytes) {
      case 1:
        CUFORGE_CU(cuMemsetD8Async, (as_dptr(dst), static_cast<unsigned char>(value), count, s), {"dst", dst},
                   {"value", value}, {"count", count}, {"stream", s});
        return;
      case 2:
        CUFORGE_CU(cuMemsetD16Async, (as_dptr(dst), static_cast<unsigned short>(value), count, s),
                   {"dst", dst}, {"value", value}, {"count", count}, {"stream", s});
        return;
      case 4:
        CUFORGE_CU(cuMemsetD32Async, (as_dptr(dst), value, count, s), {"dst", dst}, {"value", value},
                   {"count", count}, {"stream", s});
        return;
      default:
        throw logic_error("fill works on 1-, 2- or 4-byte elements, not " + std::to_string(elem_bytes));
    }
  }

  memory_kind kind_of(const void* p) override {
    if (!p) return memory_kind::pageable;
    // With unified addressing every page-locked host range reads as
    // CU_MEMORYTYPE_HOST, however it was made: our own record tells pinned,
    // mapped and registered memory apart.
    if (auto k = recorded_host_kind(p)) return *k;
    make_current(current_device());
    unsigned type = 0, managed = 0;  // wide and zeroed: the driver writes a bool for is-managed
    CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED};
    void* data[] = {&type, &managed};
    CUresult r = drv().cuPointerGetAttributes(2, attrs, data, as_dptr(p));
    if (r == CUDA_ERROR_INVALID_VALUE) return memory_kind::pageable;  // not the driver's pointer
    cuda::check(r, "cuPointerGetAttributes", {{"ptr", p}});
    return driver_kind(type, managed);
  }

  // The kind of memory the driver's attributes describe (memory our own
  // records do not know).
  static memory_kind driver_kind(unsigned type, unsigned managed) {
    if (managed) return memory_kind::managed;
    if (type == CU_MEMORYTYPE_DEVICE) return memory_kind::device;
    // Page-locked by someone else in the process (the CUDA runtime, say).
    if (type == CU_MEMORYTYPE_HOST) return memory_kind::pinned;
    return memory_kind::pageable;
  }

  std::optional<address_info> address_range(const void* p) override {
    if (!p) return std::nullopt;
    {
      const auto addr = reinterpret_cast<std::uintptr_t>(p);
      std::lock_guard lock(host_mutex_);
      auto it = host_ranges_.upper_bound(addr);
      if (it != host_ranges_.begin()) {
        --it;
        if (addr - it->first < it->second.bytes)
          return address_info{it->first, it->second.bytes, -1, it->second.kind};
      }
    }
    make_current(current_device());
    CUdeviceptr start = 0;
    std::size_t bytes = 0;
    int ordinal = -2;
    unsigned type = 0, managed = 0;  // wide and zeroed: the driver writes a bool for is-managed
    CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE,
                                   CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                   CU_POINTER_ATTRIBUTE_IS_MANAGED};
    void* data[] = {&start, &bytes, &ordinal, &type, &managed};
    CUresult r = drv().cuPointerGetAttributes(5, attrs, data, as_dptr(p));
    if (r != CUDA_SUCCESS || start == 0 || bytes == 0) return std::nullopt;  // not the driver's pointer
    // Page-locked host memory reads as host memory of some ordinal: every
    // device reaches it. The kind as kind_of reads it (the records of our
    // own host memory were looked at above).
    int device = type == CU_MEMORYTYPE_DEVICE && ordinal >= 0 ? ordinal : -1;
    return address_info{static_cast<std::uintptr_t>(start), bytes, device, driver_kind(type, managed)};
  }

  // ---- Streams -------------------------------------------------------------

  handle stream_create(int dev, int priority, bool non_blocking) override {
    make_current(dev);
    CUstream s = nullptr;
    unsigned flags = non_blocking ? CU_STREAM_NON_BLOCKING : CU_STREAM_DEFAULT;
    CUFORGE_CU(cuStreamCreateWithPriority, (&s, flags, priority), {"flags", flags}, {"priority", priority},
               {"device", dev});
    return as_handle(s);
  }

  void stream_destroy(handle stream, int dev) noexcept override {
    if (is_default_stream(stream)) return;
    try {
      make_current(dev);
      if (CUresult r = drv().cuStreamDestroy(as_stream(stream)); r != CUDA_SUCCESS)
        cuda::report(r, "cuStreamDestroy", {{"stream", as_stream(stream)}});
    } catch (const std::exception& e) {
      std::fprintf(stderr, "cuforge: destroying stream %#zx failed: %s\n", static_cast<std::size_t>(stream),
                   e.what());
    } catch (...) {
      std::fprintf(stderr, "cuforge: destroying stream %#zx failed\n", static_cast<std::size_t>(stream));
    }
  }

  void stream_synchronize(handle stream, int dev) override {
    make_current(dev);
    CUFORGE_CU(cuStreamSynchronize, (as_stream(stream)), {"stream", as_stream(stream)});
  }

  bool stream_query(handle stream, int dev) override {
    make_current(dev);
    CUresult r = drv().cuStreamQuery(as_stream(stream));
    if (r == CUDA_ERROR_NOT_READY) return false;
    cuda::check(r, "cuStreamQuery", {{"stream", as_stream(stream)}});
    return true;
  }

  void stream_wait_event(handle stream, handle event, int dev) override {
    make_current(dev);
    CUFORGE_CU(cuStreamWaitEvent, (as_stream(stream), as_event(event), CU_EVENT_WAIT_DEFAULT),
               {"stream", as_stream(stream)}, {"event", as_event(event)});
  }

  void stream_add_callback(handle stream, std::function<void()> fn, int dev) override {
    make_current(dev);
    // Owned by the driver's call once queued: run_host_callback frees it.
    auto heap = std::make_unique<std::function<void()>>(std::move(fn));
    CUresult r = drv().cuLaunchHostFunc(as_stream(stream), &run_host_callback, heap.get());
    if (r == CUDA_SUCCESS) {
      (void)heap.release();
      return;
    }
    cuda::check(r, "cuLaunchHostFunc", {{"stream", as_stream(stream)}});
  }

  int stream_priority(handle stream, int dev) override {
    make_current(dev);
    int priority = 0;
    CUFORGE_CU(cuStreamGetPriority, (as_stream(stream), &priority), {"stream", as_stream(stream)});
    return priority;
  }

  bool stream_non_blocking(handle stream, int dev) override {
    make_current(dev);
    unsigned flags = 0;
    CUFORGE_CU(cuStreamGetFlags, (as_stream(stream), &flags), {"stream", as_stream(stream)});
    return (flags & CU_STREAM_NON_BLOCKING) != 0;
  }

  std::pair<int, int> priority_range(int dev) override {
    make_current(dev);
    int least = 0, greatest = 0;
    CUFORGE_CU(cuCtxGetStreamPriorityRange, (&least, &greatest), {"device", dev});
    return {least, greatest};
  }

  int stream_device(handle stream) override {
    if (is_default_stream(stream)) return current_device();
    CUstream s = as_stream(stream);
    CUdevice d = 0;
    if (drv().cuStreamGetDevice) {
      CUFORGE_CU(cuStreamGetDevice, (s, &d), {"stream", s});
      return ordinal_of(d);
    }
    // Drivers before 12.8: the stream's context, then that context's device,
    // which cuCtxGetDevice only reports for the current context.
    CUcontext ctx = nullptr, previous = nullptr;
    CUFORGE_CU(cuStreamGetCtx, (s, &ctx), {"stream", s});
    CUFORGE_CU(cuCtxGetCurrent, (&previous));
    CUFORGE_CU(cuCtxSetCurrent, (ctx), {"ctx", ctx});
    CUresult r = drv().cuCtxGetDevice(&d);
    CUFORGE_CU(cuCtxSetCurrent, (previous), {"ctx", previous});
    cuda::check(r, "cuCtxGetDevice", {{"ctx", ctx}});
    return ordinal_of(d);
  }

  // ---- Events --------------------------------------------------------------

  handle event_create(int dev, bool timing, bool blocking_sync) override {
    make_current(dev);
    unsigned flags = (timing ? 0u : unsigned{CU_EVENT_DISABLE_TIMING}) |
                     (blocking_sync ? unsigned{CU_EVENT_BLOCKING_SYNC} : 0u);
    CUevent e = nullptr;
    CUFORGE_CU(cuEventCreate, (&e, flags), {"flags", flags}, {"device", dev});
    return as_handle(e);
  }

  void event_destroy(handle event, int dev) noexcept override {
    try {
      make_current(dev);
      if (CUresult r = drv().cuEventDestroy(as_event(event)); r != CUDA_SUCCESS)
        cuda::report(r, "cuEventDestroy", {{"event", as_event(event)}});
    } catch (const std::exception& e) {
      std::fprintf(stderr, "cuforge: destroying event %#zx failed: %s\n", static_cast<std::size_t>(event),
                   e.what());
    } catch (...) {
      std::fprintf(stderr, "cuforge: destroying event %#zx failed\n", static_cast<std::size_t>(event));
    }
  }

  void event_record(handle event, handle stream, int dev) override {
    make_current(dev);
    CUFORGE_CU(cuEventRecord, (as_event(event), as_stream(stream)), {"event", as_event(event)},
               {"stream", as_stream(stream)});
  }

  bool event_query(handle event, int dev) override {
    make_current(dev);
    CUresult r = drv().cuEventQuery(as_event(event));
    if (r == CUDA_ERROR_NOT_READY) return false;
    cuda::check(r, "cuEventQuery", {{"event", as_event(event)}});
    return true;
  }

  void event_synchronize(handle event, int dev) override {
    make_current(dev);
    CUFORGE_CU(cuEventSynchronize, (as_event(event)), {"event", as_event(event)});
  }

  float event_elapsed_ms(handle start, handle end, int dev) override {
    make_current(dev);
    float ms = 0.0f;
    CUFORGE_CU(cuEventElapsedTime, (&ms, as_event(start), as_event(end)), {"start", as_event(start)},
               {"end", as_event(end)});
    return ms;
  }

  // ---- Modules and launch --------------------------------------------------

  handle module_load(const module_image& image, const module::options& opts, int dev,
                     std::string& info_log) override {
    using fmt = module_image::format;
    // Machine code first: it loads without the JIT and is what the build
    // chose for this GPU; PTX is the portable fallback.
    const void* data = nullptr;
    const char* what = nullptr;
    std::size_t size = 0;
    if (image.has(fmt::cubin)) {
      data = image.binary(fmt::cubin).data(), size = image.binary(fmt::cubin).size(), what = "cubin";
    } else if (image.has(fmt::fatbin)) {
      data = image.binary(fmt::fatbin).data(), size = image.binary(fmt::fatbin).size(), what = "fatbin";
    } else if (image.has(fmt::ptx)) {
      data = image.ptx().c_str(), size = image.ptx().size(), what = "ptx";
    } else {
      raise(CUDA_ERROR_NOT_SUPPORTED,
            image.has(fmt::host) ? "this module image has no code for the cuda backend (host kernels only)"
                                 : "this module image holds no code",
            "module load");
    }
    CUFORGE_EXPECTS(
        opts.optimization_level >= 0 && opts.optimization_level <= 4,
        "the PTX JIT's optimization level is 0 to 4, not " + std::to_string(opts.optimization_level));
    CUFORGE_EXPECTS(opts.max_registers >= 0, "max_registers must not be negative");

    make_current(dev);
    constexpr std::size_t log_size = 64 * 1024;
    std::vector<char> error_log(log_size, '\0'), jit_info(log_size, '\0');
    auto value = [](std::uintptr_t v) { return reinterpret_cast<void*>(v); };
    CUjit_option keys[9];
    void* values[9];
    unsigned n = 0;
    auto option = [&](CUjit_option k, void* v) {
      keys[n] = k;
      values[n] = v;
      ++n;
    };
    option(CU_JIT_ERROR_LOG_BUFFER, error_log.data());
    option(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, value(log_size));
    option(CU_JIT_INFO_LOG_BUFFER, jit_info.data());
    option(CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, value(log_size));
    option(CU_JIT_OPTIMIZATION_LEVEL,
           value(opts.generate_debug_info ? 0u : static_cast<unsigned>(opts.optimization_level)));
    option(CU_JIT_GENERATE_LINE_INFO, value(opts.generate_line_info ? 1 : 0));
    if (opts.generate_debug_info) option(CU_JIT_GENERATE_DEBUG_INFO, value(1));
    if (opts.max_registers > 0)
      option(CU_JIT_MAX_REGISTERS, value(static_cast<unsigned>(opts.max_registers)));

    CUmodule mod = nullptr;
    CUresult r = drv().cuModuleLoadDataEx(&mod, data, n, keys, values);
    // The buffers were zeroed, so the text ends at the first NUL whatever
    // the driver wrote back as the filled size.
    std::string errors(error_log.data(), strnlen(error_log.data(), log_size));
    info_log.assign(jit_info.data(), strnlen(jit_info.data(), log_size));
    if (r != CUDA_SUCCESS) {
      std::string extra;
      if (!errors.empty()) extra = "JIT error log:\n" + errors;
      if (!info_log.empty()) extra += (extra.empty() ? "" : "\n") + std::string("JIT info log:\n") + info_log;
      cuda::fail(r, cuda::describe("cuModuleLoadDataEx", {{"image", what}, {"bytes", size}, {"device", dev}}),
                 extra);
    }
    return as_handle(mod);
  }

  void module_unload(handle module, int dev) noexcept override {
    try {
      make_current(dev);
      if (CUresult r = drv().cuModuleUnload(as_module(module)); r != CUDA_SUCCESS)
        cuda::report(r, "cuModuleUnload", {{"module", as_module(module)}});
    } catch (const std::exception& e) {
      std::fprintf(stderr, "cuforge: unloading module %#zx failed: %s\n", static_cast<std::size_t>(module),
                   e.what());
    } catch (...) {
      std::fprintf(stderr, "cuforge: unloading module %#zx failed\n", static_cast<std::size_t>(module));
    }
  }

  handle module_get_kernel(handle module, std::string_view name, int dev) override {
    make_current(dev);
    std::string n(name);  // the driver wants a NUL-terminated name
    CUfunction f = nullptr;
    CUresult r = drv().cuModuleGetFunction(&f, as_module(module), n.c_str());
    if (r == CUDA_ERROR_NOT_FOUND)
      throw cuda_error(
          r, cuda::error_name(r),
          "no kernel named '" + n +
              "' in this module (CUDA C++ kernels need extern \"C\" to keep their names unmangled)",
          cuda::describe("cuModuleGetFunction", {{"name", n}}));
    cuda::check(r, "cuModuleGetFunction", {{"module", as_module(module)}, {"name", n}});
    return as_handle(f);
  }

  kernel_attributes kernel_attrs(handle kernel, int dev) override {
    make_current(dev);
    CUfunction f = as_function(kernel);
    auto get = [&](CUfunction_attribute a, const char* name) {
      int v = 0;
      CUFORGE_CU(cuFuncGetAttribute, (&v, a, f), {"attribute", name}, {"kernel", f});
      return v;
    };
    kernel_attributes k;
    k.max_threads_per_block = get(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "MAX_THREADS_PER_BLOCK");
    k.num_registers = get(CU_FUNC_ATTRIBUTE_NUM_REGS, "NUM_REGS");
    k.static_shared_bytes =
        static_cast<std::size_t>(get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "SHARED_SIZE_BYTES"));
    k.local_bytes = static_cast<std::size_t>(get(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, "LOCAL_SIZE_BYTES"));
    k.const_bytes = static_cast<std::size_t>(get(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, "CONST_SIZE_BYTES"));
    k.ptx_version = get(CU_FUNC_ATTRIBUTE_PTX_VERSION, "PTX_VERSION");
    k.binary_version = get(CU_FUNC_ATTRIBUTE_BINARY_VERSION, "BINARY_VERSION");
    k.max_dynamic_shared_bytes =
        get(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, "MAX_DYNAMIC_SHARED_SIZE_BYTES");
    return k;
  }

  void kernel_set_max_dynamic_shared(handle kernel, int bytes, int dev) override {
    make_current(dev);
    CUFORGE_CU(
        cuFuncSetAttribute, (as_function(kernel), CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes),
        {"attribute", "MAX_DYNAMIC_SHARED_SIZE_BYTES"}, {"bytes", bytes}, {"kernel", as_function(kernel)});
  }

  unsigned long long max_cooperative_blocks(handle kernel, dim3 block, std::size_t shared_bytes,
                                            int dev) override {
    make_current(dev);
    int per_sm = 0;
    int threads = static_cast<int>(std::min<unsigned long long>(block.count(), INT_MAX));
    CUFORGE_CU(cuOccupancyMaxActiveBlocksPerMultiprocessor,
               (&per_sm, as_function(kernel), threads, shared_bytes), {"kernel", as_function(kernel)},
               {"block_threads", threads}, {"shared", shared_bytes});
    int sms = attribute(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    return static_cast<unsigned long long>(std::max(per_sm, 0)) *
           static_cast<unsigned long long>(std::max(sms, 0));
  }

  void launch(handle kernel, const launch_config& cfg, void** params, int dev) override {
    make_current(dev);
    CUFORGE_EXPECTS(cfg.shared_bytes <= UINT_MAX,
                    "dynamic shared memory size does not fit the driver's 32 bits");
    CUfunction f = as_function(kernel);
    CUstream s = as_stream(cfg.stream.handle());
    const auto shared = static_cast<unsigned>(cfg.shared_bytes);
    const dim3 g = cfg.grid, b = cfg.block;
    CUresult r = cfg.cooperative
                     ? drv().cuLaunchCooperativeKernel(f, g.x, g.y, g.z, b.x, b.y, b.z, shared, s, params)
                     : drv().cuLaunchKernel(f, g.x, g.y, g.z, b.x, b.y, b.z, shared, s, params, nullptr);
    cuda::check(r, cfg.cooperative ? "cuLaunchCooperativeKernel" : "cuLaunchKernel",
                {{"kernel", f},
                 {"grid", g.x, g.y, g.z},
                 {"block", b.x, b.y, b.z},
                 {"shared", shared},
                 {"stream", s}});
  }

  void profiler_start() override {
    make_current(current_device());
    CUFORGE_CU(cuProfilerStart, ());
  }

  void profiler_stop() override {
    make_current(current_device());
    CUFORGE_CU(cuProfilerStop, ());
  }

 private:
  // Large copies between pageable host memory and the device. The driver
  // stages them through pinned buffers of its own, one host thread copying
  // (an H200's host: 8.4 GB/s to the device, 14 from it, against 55 GB/s
  // pinned). Ours go in pieces through two pinned buffers, each piece's host
  // side copied by the host pool's threads (host_parallel.hpp) while the
  // other buffer's DMA runs. CUFORGE_STAGED_COPIES=0 leaves them to the driver.
  static constexpr std::size_t staged_min = std::size_t{32} << 20;  ///< smaller: the driver's
  static constexpr std::size_t staged_piece = std::size_t{16} << 20;

  struct staging {
    void* buffer[2] = {nullptr, nullptr};  ///< pinned, staged_piece bytes each
    CUevent done[2] = {nullptr, nullptr};  ///< the last DMA through buffer[i] is finished
    bool used[2] = {false, false};
  };

  struct device_slot {
    CUdevice cu = 0;
    CUcontext ctx = nullptr;  ///< our retain of the primary context, or null
    std::optional<device_properties> props;
    std::unique_ptr<staging> stage;  ///< made at the first staged copy; the context's reset frees it
  };

  static bool staging_enabled() {
    static const bool on = [] {
      const char* e = std::getenv("CUFORGE_STAGED_COPIES");
      return e == nullptr || std::string(e) != "0";
    }();
    return on;
  }

  /// 1: pageable host to device, 2: device to pageable host, 0: not staged.
  int staged_direction(void* dst, const void* src, std::size_t bytes) {
    if (bytes < staged_min || !staging_enabled() || host_workers() < 2) return 0;
    const memory_kind to = kind_of(dst), from = kind_of(src);
    if (from == memory_kind::pageable && to == memory_kind::device) return 1;
    if (from == memory_kind::device && to == memory_kind::pageable) return 2;
    return 0;
  }

  staging& staging_for(int dev) {  // the current context is dev's
    device_slot& s = slot(dev);
    if (!s.stage) {
      auto st = std::make_unique<staging>();
      for (int b = 0; b < 2; ++b) {
        CUFORGE_CU(cuMemHostAlloc, (&st->buffer[b], staged_piece, CU_MEMHOSTALLOC_PORTABLE), {"bytes", staged_piece});
        CUFORGE_CU(cuEventCreate, (&st->done[b], CU_EVENT_DISABLE_TIMING), {"device", dev});
      }
      s.stage = std::move(st);
    }
    return *s.stage;
  }

  // A host-side copy split over the pool (pieces of at least 1 MiB).
  static void host_copy(char* to, const char* from, std::size_t n) {
    const std::size_t parts = std::max<std::size_t>(1, std::min<std::size_t>(host_workers(), n >> 20));
    const std::size_t each = (n + parts - 1) / parts;
    host_parallel_for(parts, [&](std::size_t i) {
      const std::size_t at = i * each;
      if (at < n) std::memcpy(to + at, from + at, std::min(each, n - at));
    });
  }

  void staged_copy(void* dst, const void* src, std::size_t bytes, CUstream s, int dev, bool to_device) {
    std::lock_guard one(staging_mutex_);
    staging& st = staging_for(dev);
    const std::size_t pieces = (bytes + staged_piece - 1) / staged_piece;
    auto free_buffer = [&](int b) {  // no DMA still reads or writes buffer b
      if (st.used[b]) CUFORGE_CU(cuEventSynchronize, (st.done[b]), {"staging buffer", b});
    };
    auto dma = [&](std::size_t k) {  // piece k through buffer k % 2, in s's order
      const int b = static_cast<int>(k % 2);
      const std::size_t at = k * staged_piece, n = std::min(staged_piece, bytes - at);
      void* d = to_device ? static_cast<char*>(dst) + at : st.buffer[b];
      const void* from = to_device ? st.buffer[b] : static_cast<const char*>(src) + at;
      CUFORGE_CU(cuMemcpyAsync, (as_dptr(d), as_dptr(from), n, s), {"dst", d}, {"src", from}, {"bytes", n},
                 {"stream", s});
      CUFORGE_CU(cuEventRecord, (st.done[b], s), {"stream", s});
      st.used[b] = true;
    };
    if (to_device) {
      // Done with the source when this returns (the driver's rule for pageable copies); the
      // last pieces' DMA runs on in s's order.
      for (std::size_t k = 0; k < pieces; ++k) {
        const int b = static_cast<int>(k % 2);
        const std::size_t at = k * staged_piece;
        free_buffer(b);
        host_copy(static_cast<char*>(st.buffer[b]), static_cast<const char*>(src) + at,
                  std::min(staged_piece, bytes - at));
        dma(k);
      }
      return;
    }
    for (int b = 0; b < 2; ++b) free_buffer(b);
    dma(0);
    if (pieces > 1) dma(1);
    for (std::size_t k = 0; k < pieces; ++k) {
      const int b = static_cast<int>(k % 2);
      const std::size_t at = k * staged_piece;
      CUFORGE_CU(cuEventSynchronize, (st.done[b]), {"staging buffer", b});
      host_copy(static_cast<char*>(dst) + at, static_cast<const char*>(st.buffer[b]),
                std::min(staged_piece, bytes - at));
      if (k + 2 < pieces) dma(k + 2);
    }
  }

  device_slot& slot(int dev) {
    if (dev < 0 || dev >= static_cast<int>(devices_.size())) [[unlikely]]
      raise(CUDA_ERROR_INVALID_DEVICE,
            "device " + std::to_string(dev) + " does not exist (" + std::to_string(devices_.size()) +
                " CUDA device(s))",
            "cuda backend");
    return devices_[static_cast<std::size_t>(dev)];
  }

  // devices_ and each slot's CUdevice never change after construction.
  CUdevice cu(int dev) { return slot(dev).cu; }

  int ordinal_of(CUdevice d) {
    for (std::size_t i = 0; i < devices_.size(); ++i)
      if (devices_[i].cu == d) return static_cast<int>(i);
    raise(CUDA_ERROR_INVALID_DEVICE, "the driver named a device cuforge did not enumerate", "cuda backend");
  }

  /// The calling thread's current device as cuforge's users see it, for
  /// calls that name none (host registration, pointer queries, profiler).
  static int current_device() { return resolve_device(-1); }

  /// Makes dev's primary context current on this thread, retaining it the
  /// first time. The common case is one TLS compare and cuCtxGetCurrent.
  CUcontext make_current(int dev) {
    thread_context_cache& t = this_thread;
    const std::uint64_t epoch = epoch_.load(std::memory_order_acquire);
    CUcontext current = nullptr;
    // Asked every time, not trusted from the cache: another library on this
    // thread (the CUDA runtime under PyTorch or CuPy) may have switched it.
    CUFORGE_CU(cuCtxGetCurrent, (&current));
    if (t.epoch == epoch && t.dev == dev && t.ctx == current && current) [[likely]]
      return current;
    CUcontext ctx = retain(dev);
    if (current != ctx) CUFORGE_CU(cuCtxSetCurrent, (ctx), {"device", dev});
    t = {epoch, dev, ctx};
    return ctx;
  }

  CUcontext retain(int dev) {
    std::lock_guard lock(mutex_);
    device_slot& s = slot(dev);
    if (!s.ctx) CUFORGE_CU(cuDevicePrimaryCtxRetain, (&s.ctx, s.cu), {"device", dev});
    return s.ctx;
  }

  CUmemoryPool default_pool(int dev) {
    // Not cached: the handle is cheap to ask for and this way can never
    // outlive a close_all.
    CUmemoryPool pool = nullptr;
    CUFORGE_CU(cuDeviceGetDefaultMemPool, (&pool, cu(dev)), {"device", dev});
    return pool;
  }

  static std::string oom_detail(CUresult r, const char* fn) {
    std::string text = cuda::error_string(r);
    return cuda::error_name(r) + (text.empty() ? "" : ": " + text) + " from " + fn;
  }

  [[noreturn]] static void out_of_memory_error(std::size_t bytes, memory_kind kind, int dev, const char* fn) {
    throw out_of_memory(bytes, std::string(to_string(kind)) + " memory on device " + std::to_string(dev),
                        oom_detail(CUDA_ERROR_OUT_OF_MEMORY, fn));
  }

  struct host_range {
    std::size_t bytes;
    memory_kind kind;
  };

  void remember_host(void* p, std::size_t bytes, memory_kind kind) {
    std::lock_guard lock(host_mutex_);
    host_ranges_[reinterpret_cast<std::uintptr_t>(p)] = {bytes, kind};
  }

  void forget_host(void* p) noexcept {
    std::lock_guard lock(host_mutex_);
    host_ranges_.erase(reinterpret_cast<std::uintptr_t>(p));
  }

  std::optional<memory_kind> recorded_host_kind(const void* p) {
    const auto addr = reinterpret_cast<std::uintptr_t>(p);
    std::lock_guard lock(host_mutex_);
    auto it = host_ranges_.upper_bound(addr);
    if (it == host_ranges_.begin()) return std::nullopt;
    --it;
    if (addr - it->first < it->second.bytes) return it->second.kind;
    return std::nullopt;
  }

  const int version_;
  std::atomic<std::uint64_t> epoch_;
  std::mutex mutex_;  ///< guards devices_' contexts and properties
  std::vector<device_slot> devices_;
  std::mutex host_mutex_;
  std::map<std::uintptr_t, host_range> host_ranges_;  ///< page-locked host memory we made or registered
  std::mutex staging_mutex_;  ///< one staged copy at a time (the buffers are the process's)
};

}  // namespace

const cuda_probe& probe_cuda() {
  static const cuda_probe probe = []() noexcept {
    cuda_probe p;
    try {
      const cuda::load_result& r = cuda::load();
      p.driver_version = r.version;
      std::string origin;
      if (const char* env = std::getenv("CUFORGE_CUDA_DRIVER"); env && *env)
        origin = " [CUFORGE_CUDA_DRIVER=" + r.library + "]";
      if (!r.table) {
        p.reason = r.error + origin;
        return p;
      }
      int n = 0;
      if (CUresult st = r.table->cuDeviceGetCount(&n); st != CUDA_SUCCESS) {
        p.reason = "cuDeviceGetCount failed: " + cuda::error_name(st) + origin;
        return p;
      }
      p.device_count = n;
      p.usable = n > 0;
      p.reason = "CUDA driver " + cuda::version_string(r.version) + ", " +
                 (n > 0 ? std::to_string(n) + " device(s)" : std::string("no devices")) + origin;
    } catch (const std::exception& e) {
      p = {};
      p.reason = std::string("probing the CUDA driver failed: ") + e.what();
    }
    return p;
  }();
  return probe;
}

std::unique_ptr<backend> make_cuda_backend() {
  const cuda_probe& probe = probe_cuda();
  if (!probe.usable)
    raise(CUDA_ERROR_NO_DEVICE, "no usable CUDA driver: " + probe.reason, "make_cuda_backend");
  return std::make_unique<cuda_backend>(probe);
}

}  // namespace cuforge::detail
