// A mock CUDA driver (libcuda_mock.so) over host memory: the entry points
// the cuda backend calls, with the driver's rules where the backend could
// get them wrong (a current context is required, handles are checked,
// ranges are checked, DEVICEMAP is needed for a device pointer, OOM past a
// capacity), and everything else as simple as it can be. Work runs
// synchronously on the calling thread; events take real timestamps;
// "device" memory is host memory, so tests can watch copies and fills.
// It runs no kernel: a launch is checked and recorded.
//
// Modules: PTX must have a .version directive; a module containing the
// text MOCK_BAD_PTX fails to load with a JIT error log; the kernels a module
// holds are the names on its `// mock-kernels: a b c` lines.

// Export the cuda.h declarations whatever the build's default visibility.
#pragma GCC visibility push(default)
#include <cuda.h>
#include <cudaProfiler.h>
#pragma GCC visibility pop

#include "mock_cuda.hpp"
#include "sm90_limits.hpp"

// The backend's list of entry points: the mock implements exactly these
// (the library links with --no-undefined, so a missing one fails the build).
#include "cuda/driver.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr int device_count = 1;
// The architecture's limits are sm_90's, shared with the cpu backend
// (runtime/src/sm90_limits.hpp); the rest is an H100's.
constexpr int multiprocessors = 132;
constexpr int shared_per_block = cuforge::detail::sm90::shared_per_block;
constexpr int shared_per_block_optin = cuforge::detail::sm90::shared_per_block_optin;
constexpr int shared_per_multiprocessor = cuforge::detail::sm90::shared_per_multiprocessor;
constexpr int greatest_priority = -5;

struct mock_context {
  int device = 0;
  bool alive = true;
};

struct mock_stream {
  mock_context* ctx;
  unsigned flags;
  int priority;
};

struct mock_event {
  mock_context* ctx;
  unsigned flags;
  bool recorded = false;
  std::chrono::steady_clock::time_point when{};
};

struct mock_module;

struct mock_function {
  mock_module* module;
  std::string name;
  int max_dynamic_shared = shared_per_block;
};

struct mock_module {
  mock_context* ctx;
  int max_registers = 0;
  std::map<std::string, std::unique_ptr<mock_function>> kernels;
};

enum class alloc_kind { device, managed, pool, host, registered };

struct allocation {
  std::size_t bytes;
  alloc_kind kind;
  mock_context* ctx;
  bool device_mapped;  // host memory with a device address
};

struct mock_pool {
  int device;
};

struct state {
  std::mutex mu;
  bool initialized = false;
  std::size_t capacity = std::size_t{1} << 30;
  std::size_t device_used = 0;
  std::size_t host_used = 0;
  // Contexts are never freed, so a stale handle stays safe to inspect.
  std::vector<std::unique_ptr<mock_context>> contexts;
  mock_context* primary[device_count] = {};
  int retains[device_count] = {};
  mock_pool pools[device_count] = {{0}};
  std::map<std::uintptr_t, allocation> allocations;
  std::map<void*, std::unique_ptr<mock_stream>> streams;
  std::map<void*, std::unique_ptr<mock_event>> events;
  std::map<void*, std::unique_ptr<mock_module>> modules;
  std::map<void*, mock_function*> functions;
  cuforge_mock_stats stats{};
};

state& g() {
  static state* s = new state;  // leaked: the backend may call in during exit
  return *s;
}

thread_local mock_context* current = nullptr;

using lock = std::lock_guard<std::mutex>;

#define MOCK_TRY(expr)                           \
  do {                                           \
    CUresult mock_r_ = (expr);                   \
    if (mock_r_ != CUDA_SUCCESS) return mock_r_; \
  } while (0)

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

int driver_version() { return env_int("CUFORGE_MOCK_DRIVER_VERSION", 13000); }

CUresult initialized() { return g().initialized ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED; }

// Most of the driver needs an initialised driver and a live current context.
CUresult ready() {
  MOCK_TRY(initialized());
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  if (!current->alive) return CUDA_ERROR_CONTEXT_IS_DESTROYED;
  return CUDA_SUCCESS;
}

CUresult valid_device(CUdevice d) {
  MOCK_TRY(initialized());
  return d >= 0 && d < device_count ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

bool special_stream(CUstream s) { return s == nullptr || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD; }

mock_stream* find_stream(CUstream s) {
  auto it = g().streams.find(s);
  return it == g().streams.end() ? nullptr : it->second.get();
}

// A stream usable from the current context.
CUresult valid_stream(CUstream s) {
  if (special_stream(s)) return CUDA_SUCCESS;
  mock_stream* st = find_stream(s);
  if (!st) return CUDA_ERROR_INVALID_HANDLE;
  return st->ctx == current ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

mock_event* find_event(CUevent e) {
  auto it = g().events.find(e);
  return it == g().events.end() || it->second->ctx != current ? nullptr : it->second.get();
}

// The allocation holding [p, p + bytes), or end() when p is in none.
// `inside` is false when p starts in one but the range runs past its end.
std::map<std::uintptr_t, allocation>::iterator find_allocation(std::uintptr_t p, std::size_t bytes,
                                                               bool& inside) {
  auto& all = g().allocations;
  inside = true;
  auto it = all.upper_bound(p);
  if (it == all.begin()) return all.end();
  --it;
  if (p - it->first >= it->second.bytes) return all.end();
  inside = bytes <= it->second.bytes - (p - it->first);
  return it;
}

// Memory the "device" may touch: device, managed, pool or mapped host memory.
CUresult device_range(CUdeviceptr p, std::size_t bytes) {
  bool inside = false;
  auto it = find_allocation(p, bytes, inside);
  if (it == g().allocations.end() || !inside) return CUDA_ERROR_INVALID_VALUE;
  const allocation& a = it->second;
  bool reachable = a.kind == alloc_kind::device || a.kind == alloc_kind::managed ||
                   a.kind == alloc_kind::pool || a.device_mapped;
  return reachable ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

// A copy end is either in a known allocation (and must fit it) or pageable.
CUresult copy_end(CUdeviceptr p, std::size_t bytes) {
  bool inside = false;
  auto it = find_allocation(p, bytes, inside);
  return it != g().allocations.end() && !inside ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

void count_allocation(std::size_t bytes, alloc_kind kind, bool add) {
  state& s = g();
  std::size_t& used = kind == alloc_kind::host ? s.host_used : s.device_used;
  used = add ? used + bytes : used - bytes;
  s.stats.live_allocations += add ? 1 : -1;
  s.stats.device_bytes_in_use = s.device_used;
}

CUresult allocate(void** out, std::size_t bytes, alloc_kind kind, bool mapped) {
  state& s = g();
  if (bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  std::size_t used = kind == alloc_kind::host ? s.host_used : s.device_used;
  if (bytes > s.capacity - used) return CUDA_ERROR_OUT_OF_MEMORY;
  void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!p) return CUDA_ERROR_OUT_OF_MEMORY;
  s.allocations[reinterpret_cast<std::uintptr_t>(p)] = {bytes, kind, current, mapped};
  count_allocation(bytes, kind, true);
  *out = p;
  return CUDA_SUCCESS;
}

CUresult release(std::uintptr_t p, bool host) {
  state& s = g();
  auto it = s.allocations.find(p);
  if (it == s.allocations.end()) return CUDA_ERROR_INVALID_VALUE;
  const allocation& a = it->second;
  if (host != (a.kind == alloc_kind::host) || a.kind == alloc_kind::registered)
    return CUDA_ERROR_INVALID_VALUE;
  count_allocation(a.bytes, a.kind, false);
  std::free(reinterpret_cast<void*>(p));
  s.allocations.erase(it);
  return CUDA_SUCCESS;
}

// What a context reset or its last release destroys: everything it owns.
void destroy_context(mock_context* ctx) {
  state& s = g();
  ctx->alive = false;
  for (auto it = s.allocations.begin(); it != s.allocations.end();) {
    if (it->second.ctx != ctx) {
      ++it;
      continue;
    }
    if (it->second.kind != alloc_kind::registered) {
      count_allocation(it->second.bytes, it->second.kind, false);
      std::free(reinterpret_cast<void*>(it->first));
    } else {
      s.stats.live_allocations -= 1;
    }
    it = s.allocations.erase(it);
  }
  std::erase_if(s.streams, [&](const auto& kv) { return kv.second->ctx == ctx; });
  std::erase_if(s.events, [&](const auto& kv) { return kv.second->ctx == ctx; });
  std::erase_if(s.functions, [&](const auto& kv) { return kv.second->module->ctx == ctx; });
  std::erase_if(s.modules, [&](const auto& kv) { return kv.second->ctx == ctx; });
}

int device_attribute(CUdevice_attribute a) {
  if (auto v = cuforge::detail::sm90::limit(a)) return *v;
  switch (a) {
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: return 1980000;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: return multiprocessors;
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: return 1;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: return 1;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: return 0x65;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: return 2619000;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: return 5120;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: return 50 * 1024 * 1024;
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: return 3;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: return 1;
    case CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: return 1;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: return 1;
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: return 1;
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: return 1;
    default: return 0;
  }
}

int occupancy(int block_threads, std::size_t dynamic_shared) {
  if (block_threads <= 0 || block_threads > cuforge::detail::sm90::max_threads_per_block) return 0;
  int blocks = std::min(32, cuforge::detail::sm90::max_threads_per_multiprocessor / block_threads);
  if (dynamic_shared > 0)
    blocks = std::min<int>(blocks, static_cast<int>(shared_per_multiprocessor / dynamic_shared));
  return blocks;
}

std::size_t image_size(const unsigned char* b, int& format) {
  constexpr unsigned char elf[] = {0x7f, 'E', 'L', 'F'};
  if (std::memcmp(b, elf, 4) == 0) {  // a cubin: the section headers end it
    format = 1;
    std::uint64_t shoff;
    std::uint16_t shentsize, shnum;
    std::memcpy(&shoff, b + 0x28, 8);
    std::memcpy(&shentsize, b + 0x3a, 2);
    std::memcpy(&shnum, b + 0x3c, 2);
    return shoff + std::size_t{shentsize} * shnum;
  }
  std::uint32_t magic;
  std::memcpy(&magic, b, 4);
  if (magic == 0xBA55ED50u) {  // a fatbin: header size plus payload size
    format = 2;
    std::uint16_t header;
    std::uint64_t payload;
    std::memcpy(&header, b + 6, 2);
    std::memcpy(&payload, b + 8, 8);
    return header + payload;
  }
  format = 0;
  return std::strlen(reinterpret_cast<const char*>(b));
}

std::vector<std::string> listed_kernels(std::string_view text) {
  std::vector<std::string> names;
  constexpr std::string_view tag = "// mock-kernels:";
  for (std::size_t at = text.find(tag); at != std::string_view::npos; at = text.find(tag, at + 1)) {
    std::size_t end = text.find('\n', at);
    std::string_view line =
        text.substr(at + tag.size(), end == std::string_view::npos ? end : end - at - tag.size());
    std::size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
      std::size_t j = i;
      while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
      if (j > i) names.emplace_back(line.substr(i, j - i));
      i = j;
    }
  }
  return names;
}

// Writes a JIT log the way the driver does: NUL-terminated, truncated to the
// buffer, with the filled size written back into the option's value.
void write_log(char* buffer, void** size_slot, const std::string& text) {
  if (!buffer || !size_slot) return;
  auto capacity = reinterpret_cast<std::uintptr_t>(*size_slot);
  if (capacity == 0) return;
  std::size_t n = std::min<std::size_t>(text.size(), capacity - 1);
  std::memcpy(buffer, text.data(), n);
  buffer[n] = '\0';
  *size_slot = reinterpret_cast<void*>(static_cast<std::uintptr_t>(n + 1));
}

struct error_text {
  CUresult code;
  const char* name;
  const char* text;
};

#define MOCK_ERROR(code, text) \
  { code, #code, text " [mock driver]" }
constexpr error_text errors[] = {
    MOCK_ERROR(CUDA_SUCCESS, "no error"),
    MOCK_ERROR(CUDA_ERROR_INVALID_VALUE, "invalid argument"),
    MOCK_ERROR(CUDA_ERROR_OUT_OF_MEMORY, "out of memory"),
    MOCK_ERROR(CUDA_ERROR_NOT_INITIALIZED, "initialization error"),
    MOCK_ERROR(CUDA_ERROR_PROFILER_DISABLED, "profiler disabled while using external profiling tool"),
    MOCK_ERROR(CUDA_ERROR_STUB_LIBRARY, "CUDA driver is a stub library"),
    MOCK_ERROR(CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected"),
    MOCK_ERROR(CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal"),
    MOCK_ERROR(CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid"),
    MOCK_ERROR(CUDA_ERROR_INVALID_CONTEXT, "invalid device context"),
    MOCK_ERROR(CUDA_ERROR_INVALID_PTX, "a PTX JIT compilation failed"),
    MOCK_ERROR(CUDA_ERROR_INVALID_HANDLE, "invalid resource handle"),
    MOCK_ERROR(CUDA_ERROR_NOT_FOUND, "named symbol not found"),
    MOCK_ERROR(CUDA_ERROR_NOT_READY, "device not ready"),
    MOCK_ERROR(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
               "part or all of the requested memory range is already mapped"),
    MOCK_ERROR(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED,
               "pointer does not correspond to a registered memory region"),
    MOCK_ERROR(CUDA_ERROR_CONTEXT_IS_DESTROYED, "context is destroyed"),
    MOCK_ERROR(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, "too many blocks in cooperative launch"),
    MOCK_ERROR(CUDA_ERROR_NOT_PERMITTED, "operation not permitted"),
    MOCK_ERROR(CUDA_ERROR_NOT_SUPPORTED, "operation not supported"),
    MOCK_ERROR(CUDA_ERROR_UNKNOWN, "unknown error"),
};
#undef MOCK_ERROR

const error_text* find_error(CUresult code) {
  for (const auto& e : errors)
    if (e.code == code) return &e;
  return nullptr;
}

bool hidden(const char* symbol) {
  const char* list = std::getenv("CUFORGE_MOCK_HIDE");
  if (!list) return false;
  std::string_view all(list), want(symbol);
  for (std::size_t at = 0; at <= all.size();) {
    std::size_t comma = std::min(all.find(',', at), all.size());
    if (all.substr(at, comma - at) == want) return true;
    at = comma + 1;
  }
  return false;
}

template <class T>
CUresult memset_n(CUdeviceptr dst, T value, std::size_t n, CUstream stream) {
  lock l(g().mu);
  MOCK_TRY(ready());
  MOCK_TRY(valid_stream(stream));
  if (dst % sizeof(T) != 0) return CUDA_ERROR_INVALID_VALUE;
  MOCK_TRY(device_range(dst, n * sizeof(T)));
  T* p = reinterpret_cast<T*>(dst);
  std::fill(p, p + n, value);
  return CUDA_SUCCESS;
}

CUresult valid_pool(CUmemoryPool pool) {
  auto* p = reinterpret_cast<mock_pool*>(pool);
  return p >= g().pools && p < g().pools + device_count ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

mock_function* find_function(CUfunction f) {
  auto it = g().functions.find(f);
  return it == g().functions.end() || it->second->module->ctx != current ? nullptr : it->second;
}

CUresult launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                unsigned shared, CUstream stream, void** params, bool cooperative) {
  state& s = g();
  lock l(s.mu);
  MOCK_TRY(ready());
  mock_function* fn = find_function(f);
  if (!fn) return CUDA_ERROR_INVALID_HANDLE;
  MOCK_TRY(valid_stream(stream));
  unsigned long long threads = 1ull * bx * by * bz;
  if (gx == 0 || gy == 0 || gz == 0 || threads == 0 || threads > 1024 || bz > 64)
    return CUDA_ERROR_INVALID_VALUE;
  if (shared > static_cast<unsigned>(fn->max_dynamic_shared)) return CUDA_ERROR_INVALID_VALUE;
  if (cooperative &&
      1ull * gx * gy * gz > 1ull * occupancy(static_cast<int>(threads), shared) * multiprocessors)
    return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
  cuforge_mock_stats& st = s.stats;
  st.launches++;
  if (cooperative) st.cooperative_launches++;
  std::snprintf(st.last_kernel, sizeof st.last_kernel, "%s", fn->name.c_str());
  st.last_grid[0] = gx, st.last_grid[1] = gy, st.last_grid[2] = gz;
  st.last_block[0] = bx, st.last_block[1] = by, st.last_block[2] = bz;
  st.last_shared = shared;
  st.last_stream = stream;
  st.last_params = params;
  return CUDA_SUCCESS;
}

// The newer variants the real driver serves under old names (see
// cuGetProcAddress below); the backend must never be handed these.
CUresult CUDAAPI ctx_synchronize_v13000(CUcontext ctx) {
  lock l(g().mu);
  MOCK_TRY(initialized());
  auto* c = ctx ? reinterpret_cast<mock_context*>(ctx) : current;
  if (!c) return CUDA_ERROR_INVALID_CONTEXT;
  return c->alive ? CUDA_SUCCESS : CUDA_ERROR_CONTEXT_IS_DESTROYED;
}

CUresult CUDAAPI ctx_get_device_v13000(CUdevice* d, CUcontext ctx) {
  lock l(g().mu);
  MOCK_TRY(initialized());
  auto* c = ctx ? reinterpret_cast<mock_context*>(ctx) : current;
  if (!c) return CUDA_ERROR_INVALID_CONTEXT;
  if (!c->alive) return CUDA_ERROR_CONTEXT_IS_DESTROYED;
  *d = c->device;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI stream_get_ctx_v12050(CUstream stream, CUcontext* ctx, CUgreenCtx* green) {
  lock l(g().mu);
  MOCK_TRY(initialized());
  mock_context* c = current;
  if (!special_stream(stream)) {
    mock_stream* st = find_stream(stream);
    if (!st) return CUDA_ERROR_INVALID_HANDLE;
    c = st->ctx;
  }
  if (!c) return CUDA_ERROR_INVALID_CONTEXT;
  *ctx = reinterpret_cast<CUcontext>(c);
  if (green) *green = nullptr;
  return CUDA_SUCCESS;
}

}  // namespace

extern "C" {

void cuforge_mock_get_stats(cuforge_mock_stats* out) {
  lock l(g().mu);
  *out = g().stats;
}

// ---- Errors, initialisation, entry points ----------------------------------

CUresult CUDAAPI cuGetErrorName(CUresult error, const char** p) {
  const error_text* e = find_error(error);
  *p = e ? e->name : nullptr;
  return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuGetErrorString(CUresult error, const char** p) {
  const error_text* e = find_error(error);
  *p = e ? e->text : nullptr;
  return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuDriverGetVersion(int* v) {
  if (!v) return CUDA_ERROR_INVALID_VALUE;
  *v = driver_version();
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuInit(unsigned int flags) {
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  state& s = g();
  lock l(s.mu);
  if (const char* cap = std::getenv("CUFORGE_MOCK_DEVICE_MEMORY"); cap && *cap)
    s.capacity = std::strtoull(cap, nullptr, 10);
  s.initialized = true;
  s.stats.init_calls++;
  return CUDA_SUCCESS;
}

// ---- Devices ----------------------------------------------------------------

CUresult CUDAAPI cuDeviceGet(CUdevice* d, int ordinal) {
  lock l(g().mu);
  MOCK_TRY(valid_device(ordinal));
  *d = ordinal;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetCount(int* n) {
  lock l(g().mu);
  MOCK_TRY(initialized());
  *n = device_count;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetName(char* name, int len, CUdevice d) {
  lock l(g().mu);
  MOCK_TRY(valid_device(d));
  if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  std::snprintf(name, static_cast<std::size_t>(len), "%s", "cuforge mock device");
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetAttribute(int* v, CUdevice_attribute a, CUdevice d) {
  lock l(g().mu);
  MOCK_TRY(valid_device(d));
  if (!v || a <= 0 || a >= CU_DEVICE_ATTRIBUTE_MAX) return CUDA_ERROR_INVALID_VALUE;
  *v = device_attribute(a);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceTotalMem(size_t* bytes, CUdevice d) {
  lock l(g().mu);
  MOCK_TRY(valid_device(d));
  *bytes = g().capacity;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetUuid(CUuuid* id, CUdevice d) {
  lock l(g().mu);
  MOCK_TRY(valid_device(d));
  static constexpr unsigned char bytes[16] = {0x6d, 0x6f, 0x63, 0x6b, 0x2d, 0x67, 0x70, 0x75,
                                              0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01};
  std::memcpy(id->bytes, bytes, 16);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetPCIBusId(char* id, int len, CUdevice d) {
  lock l(g().mu);
  MOCK_TRY(valid_device(d));
  if (!id || len < 13) return CUDA_ERROR_INVALID_VALUE;
  std::snprintf(id, static_cast<std::size_t>(len), "0000:%02x:00.0",
                device_attribute(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID));
  return CUDA_SUCCESS;
}

// ---- Contexts -----------------------------------------------------------------

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext* ctx, CUdevice d) {
  state& s = g();
  lock l(s.mu);
  MOCK_TRY(valid_device(d));
  if (!s.primary[d]) {
    s.contexts.push_back(std::make_unique<mock_context>(mock_context{d, true}));
    s.primary[d] = s.contexts.back().get();
    s.stats.contexts_created++;
  }
  s.retains[d]++;
  s.stats.primary_retains++;
  *ctx = reinterpret_cast<CUcontext>(s.primary[d]);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice d) {
  state& s = g();
  lock l(s.mu);
  MOCK_TRY(valid_device(d));
  if (s.retains[d] == 0) return CUDA_ERROR_INVALID_CONTEXT;
  s.stats.primary_releases++;
  if (--s.retains[d] == 0 && s.primary[d]) {
    destroy_context(s.primary[d]);
    s.primary[d] = nullptr;
  }
  return CUDA_SUCCESS;
}

// Destroys everything but leaves the retain count alone, as the driver does.
CUresult CUDAAPI cuDevicePrimaryCtxReset(CUdevice d) {
  state& s = g();
  lock l(s.mu);
  MOCK_TRY(valid_device(d));
  s.stats.primary_resets++;
  if (s.primary[d]) {
    destroy_context(s.primary[d]);
    s.primary[d] = nullptr;
  }
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx) {
  state& s = g();
  lock l(s.mu);
  MOCK_TRY(initialized());
  s.stats.set_current_calls++;
  auto* c = reinterpret_cast<mock_context*>(ctx);
  if (c && std::none_of(s.contexts.begin(), s.contexts.end(), [&](const auto& p) { return p.get() == c; }))
    return CUDA_ERROR_INVALID_CONTEXT;
  current = c;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetCurrent(CUcontext* ctx) {
  lock l(g().mu);
  MOCK_TRY(initialized());
  *ctx = reinterpret_cast<CUcontext>(current);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetDevice(CUdevice* d) {
  lock l(g().mu);
  MOCK_TRY(ready());
  *d = current->device;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSynchronize(void) {
  lock l(g().mu);
  return ready();
}

CUresult CUDAAPI cuCtxGetStreamPriorityRange(int* least, int* greatest) {
  lock l(g().mu);
  MOCK_TRY(ready());
  if (least) *least = 0;
  if (greatest) *greatest = greatest_priority;
  return CUDA_SUCCESS;
}

// ---- Memory -------------------------------------------------------------------

CUresult CUDAAPI cuMemGetInfo(size_t* free_bytes, size_t* total) {
  state& s = g();
  lock l(s.mu);
  MOCK_TRY(ready());
  *free_bytes = s.capacity - s.device_used;
  *total = s.capacity;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAlloc(CUdeviceptr* p, size_t bytes) {
  lock l(g().mu);
  MOCK_TRY(ready());
  void* out = nullptr;
  MOCK_TRY(allocate(&out, bytes, alloc_kind::device, false));
  *p = reinterpret_cast<CUdeviceptr>(out);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemFree(CUdeviceptr p) {
  lock l(g().mu);
  MOCK_TRY(ready());
  return release(p, false);
}

CUresult CUDAAPI cuMemHostAlloc(void** p, size_t bytes, unsigned int flags) {
  state& s = g();
  lock l(s.mu);
  MOCK_TRY(ready());
  if (flags & ~unsigned{CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED})
    return CUDA_ERROR_INVALID_VALUE;
  s.stats.last_host_alloc_flags = flags;
  return allocate(p, bytes, alloc_kind::host, (flags & CU_MEMHOSTALLOC_DEVICEMAP) != 0);
}

CUresult CUDAAPI cuMemFreeHost(void* p) {
  lock l(g().mu);
  MOCK_TRY(ready());
  return release(reinterpret_cast<std::uintptr_t>(p), true);
}

CUresult CUDAAPI cuMemHostGetDevicePointer(CUdeviceptr* dp, void* p, unsigned int flags) {
  lock l(g().mu);
  MOCK_TRY(ready());
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  bool inside = false;
  auto it = find_allocation(reinterpret_cast<std::uintptr_t>(p), 1, inside);
  // As the driver: only memory allocated or registered with DEVICEMAP.
  if (it == g().allocations.end() || !it->second.device_mapped) return CUDA_ERROR_INVALID_VALUE;
  *dp = reinterpret_cast<CUdeviceptr>(p);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAllocManaged(CUdeviceptr* p, size_t bytes, unsigned int flags) {
  state& s = g();
  lock l(s.mu);
  MOCK_TRY(ready());
  if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST) return CUDA_ERROR_INVALID_VALUE;
  s.stats.last_managed_flags = flags;
  void* out = nullptr;
  MOCK_TRY(allocate(&out, bytes, alloc_kind::managed, true));
  *p = reinterpret_cast<CUdeviceptr>(out);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemHostRegister(void* p, size_t bytes, unsigned int flags) {
  state& s = g();
  lock l(s.mu);
  MOCK_TRY(ready());
  if (!p || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  s.stats.last_host_register_flags = flags;
  auto start = reinterpret_cast<std::uintptr_t>(p);
  // Any overlap with memory the driver already knows is refused.
  auto it = s.allocations.lower_bound(start);
  if (it != s.allocations.end() && it->first < start + bytes)
    return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
  if (it != s.allocations.begin() && std::prev(it)->first + std::prev(it)->second.bytes > start)
    return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
  s.allocations[start] = {bytes, alloc_kind::registered, current,
                          (flags & CU_MEMHOSTREGISTER_DEVICEMAP) != 0};
  s.stats.live_allocations++;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemHostUnregister(void* p) {
  state& s = g();
  lock l(s.mu);
  MOCK_TRY(ready());
  auto it = s.allocations.find(reinterpret_cast<std::uintptr_t>(p));
  if (it == s.allocations.end() || it->second.kind != alloc_kind::registered)
    return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
  s.allocations.erase(it);
  s.stats.live_allocations--;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream) {
  lock l(g().mu);
  MOCK_TRY(ready());
  g().stats.async_copies++;
  MOCK_TRY(valid_stream(stream));
  MOCK_TRY(copy_end(dst, bytes));
  MOCK_TRY(copy_end(src, bytes));
  std::memmove(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), bytes);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  {
    lock l(g().mu);
    g().stats.sync_copies++;
  }
  return cuMemcpyAsync(dst, src, bytes, nullptr);  // the legacy stream; the mock runs every copy at once
}

CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, CUstream s) {
  return memset_n(dst, v, n, s);
}
CUresult CUDAAPI cuMemsetD16Async(CUdeviceptr dst, unsigned short v, size_t n, CUstream s) {
  return memset_n(dst, v, n, s);
}
CUresult CUDAAPI cuMemsetD32Async(CUdeviceptr dst, unsigned int v, size_t n, CUstream s) {
  return memset_n(dst, v, n, s);
}

CUresult CUDAAPI cuDeviceGetDefaultMemPool(CUmemoryPool* pool, CUdevice d) {
  lock l(g().mu);
  MOCK_TRY(valid_device(d));
  *pool = reinterpret_cast<CUmemoryPool>(&g().pools[d]);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAllocFromPoolAsync(CUdeviceptr* p, size_t bytes, CUmemoryPool pool, CUstream stream) {
  state& s = g();
  lock l(s.mu);
  MOCK_TRY(ready());
  MOCK_TRY(valid_pool(pool));
  MOCK_TRY(valid_stream(stream));
  void* out = nullptr;
  MOCK_TRY(allocate(&out, bytes, alloc_kind::pool, false));
  s.stats.pool_allocations++;
  *p = reinterpret_cast<CUdeviceptr>(out);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr p, CUstream stream) {
  lock l(g().mu);
  MOCK_TRY(ready());
  MOCK_TRY(valid_stream(stream));
  return release(p, false);
}

CUresult CUDAAPI cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void* value) {
  state& s = g();
  lock l(s.mu);
  MOCK_TRY(initialized());
  MOCK_TRY(valid_pool(pool));
  if (attr != CU_MEMPOOL_ATTR_RELEASE_THRESHOLD || !value) return CUDA_ERROR_INVALID_VALUE;
  s.stats.pool_release_threshold = *static_cast<cuuint64_t*>(value);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemPoolTrimTo(CUmemoryPool pool, size_t keep) {
  state& s = g();
  lock l(s.mu);
  MOCK_TRY(initialized());
  MOCK_TRY(valid_pool(pool));
  s.stats.pool_trim_keep = keep;
  s.stats.pool_trim_calls++;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuPointerGetAttributes(unsigned int n, CUpointer_attribute* attrs, void** data,
                                        CUdeviceptr p) {
  lock l(g().mu);
  g().stats.pointer_attribute_calls++;
  MOCK_TRY(ready());
  bool inside = false;
  auto it = find_allocation(p, 1, inside);
  const allocation* a = it == g().allocations.end() ? nullptr : &it->second;
  for (unsigned i = 0; i < n; ++i) {
    switch (attrs[i]) {
      case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: {
        // Unknown pointers get the null value, not an error (the plural call's rule).
        unsigned type = 0;
        if (a)
          type = a->kind == alloc_kind::host || a->kind == alloc_kind::registered ? CU_MEMORYTYPE_HOST
                                                                                  : CU_MEMORYTYPE_DEVICE;
        *static_cast<unsigned*>(data[i]) = type;
        break;
      }
      case CU_POINTER_ATTRIBUTE_IS_MANAGED:
        *static_cast<bool*>(data[i]) = a && a->kind == alloc_kind::managed;
        break;
      case CU_POINTER_ATTRIBUTE_MAPPED: *static_cast<bool*>(data[i]) = a != nullptr; break;
      case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
        *static_cast<CUdeviceptr*>(data[i]) = a ? static_cast<CUdeviceptr>(it->first) : 0;
        break;
      case CU_POINTER_ATTRIBUTE_RANGE_SIZE: *static_cast<std::size_t*>(data[i]) = a ? a->bytes : 0; break;
      case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *static_cast<int*>(data[i]) = a ? a->ctx->device : -2; break;
      case CU_POINTER_ATTRIBUTE_CONTEXT:
        *static_cast<CUcontext*>(data[i]) = a ? reinterpret_cast<CUcontext>(a->ctx) : nullptr;
        break;
      case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
        *static_cast<CUmemoryPool*>(data[i]) =
            a && a->kind == alloc_kind::pool ? reinterpret_cast<CUmemoryPool>(&g().pools[a->ctx->device]) : nullptr;
        break;
      default: return CUDA_ERROR_INVALID_VALUE;
    }
  }
  return CUDA_SUCCESS;
}

// ---- IPC ----------------------------------------------------------------------
// The mock's handle is "MOCKIPC" and the allocation's address; opening it in
// the same process gives that address back (a stand-in for another
// process's mapping), counted until closed.

CUresult CUDAAPI cuIpcGetMemHandle(CUipcMemHandle* h, CUdeviceptr p) {
  lock l(g().mu);
  MOCK_TRY(ready());
  auto it = g().allocations.find(static_cast<std::uintptr_t>(p));
  if (!h || it == g().allocations.end() || it->second.kind != alloc_kind::device) return CUDA_ERROR_INVALID_VALUE;
  std::memset(h->reserved, 0, sizeof h->reserved);
  std::memcpy(h->reserved, "MOCKIPC", 7);
  std::memcpy(h->reserved + 8, &p, sizeof p);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuIpcOpenMemHandle(CUdeviceptr* out, CUipcMemHandle h, unsigned int flags) {
  lock l(g().mu);
  MOCK_TRY(ready());
  if (!out || flags != CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS || std::memcmp(h.reserved, "MOCKIPC", 7) != 0)
    return CUDA_ERROR_INVALID_VALUE;
  CUdeviceptr p = 0;
  std::memcpy(&p, h.reserved + 8, sizeof p);
  if (g().allocations.find(static_cast<std::uintptr_t>(p)) == g().allocations.end()) return CUDA_ERROR_INVALID_HANDLE;
  g().stats.ipc_open_handles++;
  *out = p;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuIpcCloseMemHandle(CUdeviceptr) {
  lock l(g().mu);
  MOCK_TRY(ready());
  if (g().stats.ipc_open_handles == 0) return CUDA_ERROR_INVALID_VALUE;
  g().stats.ipc_open_handles--;
  return CUDA_SUCCESS;
}

// ---- Streams ------------------------------------------------------------------

CUresult CUDAAPI cuStreamCreateWithPriority(CUstream* out, unsigned int flags, int priority) {
  state& s = g();
  lock l(s.mu);
  MOCK_TRY(ready());
  if (flags & ~unsigned{CU_STREAM_NON_BLOCKING}) return CUDA_ERROR_INVALID_VALUE;
  s.stats.last_stream_flags = flags;
  // The driver clamps priorities into the device's range.
  auto st =
      std::make_unique<mock_stream>(mock_stream{current, flags, std::clamp(priority, greatest_priority, 0)});
  *out = reinterpret_cast<CUstream>(st.get());
  s.streams[st.get()] = std::move(st);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamDestroy(CUstream stream) {
  lock l(g().mu);
  MOCK_TRY(ready());
  if (special_stream(stream) || !find_stream(stream)) return CUDA_ERROR_INVALID_HANDLE;
  g().streams.erase(stream);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamSynchronize(CUstream stream) {
  lock l(g().mu);
  MOCK_TRY(ready());
  g().stats.stream_synchronizes++;
  return valid_stream(stream);
}

CUresult CUDAAPI cuStreamQuery(CUstream stream) {
  lock l(g().mu);
  MOCK_TRY(ready());
  return valid_stream(stream);  // synchronous: always idle
}

CUresult CUDAAPI cuStreamWaitEvent(CUstream stream, CUevent event, unsigned int flags) {
  lock l(g().mu);
  MOCK_TRY(ready());
  MOCK_TRY(valid_stream(stream));
  if (!find_event(event)) return CUDA_ERROR_INVALID_HANDLE;
  return flags == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuLaunchHostFunc(CUstream stream, CUhostFn fn, void* user) {
  {
    lock l(g().mu);
    MOCK_TRY(ready());
    MOCK_TRY(valid_stream(stream));
    if (!fn) return CUDA_ERROR_INVALID_VALUE;
    g().stats.host_callbacks++;
  }
  fn(user);  // unlocked: the stream is idle, so the callback runs now
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamGetPriority(CUstream stream, int* priority) {
  lock l(g().mu);
  MOCK_TRY(ready());
  MOCK_TRY(valid_stream(stream));
  *priority = special_stream(stream) ? 0 : find_stream(stream)->priority;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamGetFlags(CUstream stream, unsigned int* flags) {
  lock l(g().mu);
  MOCK_TRY(ready());
  MOCK_TRY(valid_stream(stream));
  *flags = special_stream(stream) ? 0u : find_stream(stream)->flags;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamGetCtx(CUstream stream, CUcontext* ctx) {
  lock l(g().mu);
  MOCK_TRY(initialized());
  if (special_stream(stream)) {
    MOCK_TRY(ready());
    *ctx = reinterpret_cast<CUcontext>(current);
    return CUDA_SUCCESS;
  }
  mock_stream* st = find_stream(stream);
  if (!st) return CUDA_ERROR_INVALID_HANDLE;
  *ctx = reinterpret_cast<CUcontext>(st->ctx);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamGetDevice(CUstream stream, CUdevice* d) {
  lock l(g().mu);
  MOCK_TRY(initialized());
  if (special_stream(stream)) {
    MOCK_TRY(ready());
    *d = current->device;
    return CUDA_SUCCESS;
  }
  mock_stream* st = find_stream(stream);
  if (!st) return CUDA_ERROR_INVALID_HANDLE;
  *d = st->ctx->device;
  return CUDA_SUCCESS;
}

// ---- Events -------------------------------------------------------------------

CUresult CUDAAPI cuEventCreate(CUevent* out, unsigned int flags) {
  state& s = g();
  lock l(s.mu);
  MOCK_TRY(ready());
  if (flags & ~unsigned{CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS})
    return CUDA_ERROR_INVALID_VALUE;
  s.stats.last_event_flags = flags;
  auto e = std::make_unique<mock_event>(mock_event{current, flags});
  *out = reinterpret_cast<CUevent>(e.get());
  s.events[e.get()] = std::move(e);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventDestroy(CUevent event) {
  lock l(g().mu);
  MOCK_TRY(ready());
  if (!find_event(event)) return CUDA_ERROR_INVALID_HANDLE;
  g().events.erase(event);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventRecord(CUevent event, CUstream stream) {
  lock l(g().mu);
  MOCK_TRY(ready());
  MOCK_TRY(valid_stream(stream));
  mock_event* e = find_event(event);
  if (!e) return CUDA_ERROR_INVALID_HANDLE;
  e->recorded = true;
  e->when = std::chrono::steady_clock::now();
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventQuery(CUevent event) {
  lock l(g().mu);
  MOCK_TRY(ready());
  return find_event(event) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult CUDAAPI cuEventSynchronize(CUevent event) {
  lock l(g().mu);
  MOCK_TRY(ready());
  return find_event(event) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult CUDAAPI cuEventElapsedTime(float* ms, CUevent start, CUevent end) {
  lock l(g().mu);
  MOCK_TRY(ready());
  mock_event* a = find_event(start);
  mock_event* b = find_event(end);
  if (!a || !b || !ms) return CUDA_ERROR_INVALID_HANDLE;
  if ((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING) return CUDA_ERROR_INVALID_HANDLE;
  if (!a->recorded || !b->recorded) return CUDA_ERROR_INVALID_HANDLE;
  *ms = std::chrono::duration<float, std::milli>(b->when - a->when).count();
  return CUDA_SUCCESS;
}

// ---- Modules and launch ---------------------------------------------------------

CUresult CUDAAPI cuModuleLoadDataEx(CUmodule* out, const void* image, unsigned int n, CUjit_option* keys,
                                    void** values) {
  state& s = g();
  lock l(s.mu);
  MOCK_TRY(ready());
  if (!out || !image || (n > 0 && (!keys || !values))) return CUDA_ERROR_INVALID_VALUE;

  char* error_log = nullptr;
  char* info_log = nullptr;
  void** error_size = nullptr;
  void** info_size = nullptr;
  int max_registers = 0, level = 4, line_info = 0, debug_info = 0;
  for (unsigned i = 0; i < n; ++i) {
    auto v = reinterpret_cast<std::uintptr_t>(values[i]);
    switch (keys[i]) {
      case CU_JIT_ERROR_LOG_BUFFER: error_log = static_cast<char*>(values[i]); break;
      case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: error_size = &values[i]; break;
      case CU_JIT_INFO_LOG_BUFFER: info_log = static_cast<char*>(values[i]); break;
      case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES: info_size = &values[i]; break;
      case CU_JIT_MAX_REGISTERS: max_registers = static_cast<int>(v); break;
      case CU_JIT_OPTIMIZATION_LEVEL:
        if (v > 4) return CUDA_ERROR_INVALID_VALUE;
        level = static_cast<int>(v);
        break;
      case CU_JIT_GENERATE_LINE_INFO: line_info = static_cast<int>(v); break;
      case CU_JIT_GENERATE_DEBUG_INFO: debug_info = static_cast<int>(v); break;
      default: break;  // other options do not change what the mock does
    }
  }

  int format = 0;
  std::size_t size = image_size(static_cast<const unsigned char*>(image), format);
  if (size == 0 || size > (std::size_t{64} << 20)) return CUDA_ERROR_INVALID_IMAGE;
  std::string_view text(static_cast<const char*>(image), size);
  s.stats.last_module_format = format;
  s.stats.jit_max_registers = max_registers;
  s.stats.jit_optimization_level = level;
  s.stats.jit_line_info = line_info;
  s.stats.jit_debug_info = debug_info;
  // As the driver's JIT (seen on an H200, driver 580): PTX with debug
  // sections compiles only with -g at -O0.
  if (format == 0 && text.find(", debug\n") != std::string_view::npos && (level != 0 || !debug_info)) {
    write_log(error_log, error_size, "ptxas fatal   : Optimized debugging not supported\n");
    return CUDA_ERROR_INVALID_PTX;
  }

  std::size_t bad = text.find("MOCK_BAD_PTX");
  if (bad != std::string_view::npos || (format == 0 && text.find(".version") == std::string_view::npos)) {
    std::string why;
    if (bad != std::string_view::npos) {
      auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bad), '\n');
      why = "ptxas application ptx input, line " + std::to_string(line) +
            "; error   : MOCK_BAD_PTX: the mock JIT rejects this module";
    } else {
      why = "ptxas application ptx input, line 1; error   : not PTX (no .version directive)";
    }
    write_log(error_log, error_size, why + "\nptxas fatal   : Ptx assembly aborted due to errors\n");
    return CUDA_ERROR_INVALID_PTX;
  }

  auto m = std::make_unique<mock_module>();
  m->ctx = current;
  m->max_registers = max_registers;
  std::string names;
  for (const std::string& k : listed_kernels(text)) {
    auto f = std::make_unique<mock_function>(mock_function{m.get(), k});
    s.functions[f.get()] = f.get();
    m->kernels[k] = std::move(f);
    names += (names.empty() ? "" : " ") + k;
  }
  write_log(info_log, info_size,
            "mock JIT: " + std::to_string(m->kernels.size()) + " kernel(s) [" + names + "] for sm_90, -O" +
                std::to_string(level) + ", max registers " + std::to_string(max_registers) + ", line info " +
                (line_info ? "on" : "off"));
  s.stats.modules_loaded++;
  *out = reinterpret_cast<CUmodule>(m.get());
  s.modules[m.get()] = std::move(m);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleUnload(CUmodule mod) {
  state& s = g();
  lock l(s.mu);
  MOCK_TRY(ready());
  auto it = s.modules.find(mod);
  if (it == s.modules.end()) return CUDA_ERROR_INVALID_HANDLE;
  std::erase_if(s.functions, [&](const auto& kv) { return kv.second->module == it->second.get(); });
  s.modules.erase(it);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction* f, CUmodule mod, const char* name) {
  state& s = g();
  lock l(s.mu);
  MOCK_TRY(ready());
  auto it = s.modules.find(mod);
  if (it == s.modules.end() || it->second->ctx != current) return CUDA_ERROR_INVALID_HANDLE;
  if (!name) return CUDA_ERROR_INVALID_VALUE;
  auto k = it->second->kernels.find(name);
  if (k == it->second->kernels.end()) return CUDA_ERROR_NOT_FOUND;
  *f = reinterpret_cast<CUfunction>(k->second.get());
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncGetAttribute(int* v, CUfunction_attribute a, CUfunction f) {
  lock l(g().mu);
  MOCK_TRY(ready());
  mock_function* fn = find_function(f);
  if (!fn) return CUDA_ERROR_INVALID_HANDLE;
  int regs = fn->module->max_registers > 0 ? std::min(32, fn->module->max_registers) : 32;
  switch (a) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *v = regs; break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION: *v = 80; break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *v = 90; break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *v = fn->max_dynamic_shared; break;
    default:
      if (a < 0 || a >= CU_FUNC_ATTRIBUTE_MAX) return CUDA_ERROR_INVALID_VALUE;
      *v = 0;
  }
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int value) {
  lock l(g().mu);
  MOCK_TRY(ready());
  mock_function* fn = find_function(f);
  if (!fn) return CUDA_ERROR_INVALID_HANDLE;
  if (a != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) return CUDA_ERROR_INVALID_VALUE;
  if (value < 0 || value > shared_per_block_optin) return CUDA_ERROR_INVALID_VALUE;
  fn->max_dynamic_shared = value;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, CUfunction f, int block_size,
                                                             size_t dynamic_shared) {
  lock l(g().mu);
  MOCK_TRY(ready());
  if (!find_function(f)) return CUDA_ERROR_INVALID_HANDLE;
  *blocks = occupancy(block_size, dynamic_shared);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                                unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared,
                                CUstream stream, void** params, void** extra) {
  if (extra) return CUDA_ERROR_NOT_SUPPORTED;  // the backend passes parameters as kernelParams only
  return launch(f, gx, gy, gz, bx, by, bz, shared, stream, params, false);
}

CUresult CUDAAPI cuLaunchCooperativeKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                                           unsigned int bx, unsigned int by, unsigned int bz,
                                           unsigned int shared, CUstream stream, void** params) {
  return launch(f, gx, gy, gz, bx, by, bz, shared, stream, params, true);
}

CUresult CUDAAPI cuProfilerStart(void) {
  lock l(g().mu);
  MOCK_TRY(ready());
  g().stats.profiler_active = 1;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuProfilerStop(void) {
  lock l(g().mu);
  MOCK_TRY(ready());
  g().stats.profiler_active = 0;
  return CUDA_SUCCESS;
}

// ---- Entry point lookup ---------------------------------------------------------

CUresult CUDAAPI cuGetProcAddress(const char* symbol, void** pfn, int version, cuuint64_t flags,
                                  CUdriverProcAddressQueryResult* status) {
  struct entry {
    const char* name;
    int since;  // the CUDA version that introduced this variant
    void* fn;
    bool newer;  // newer than the declaration cuda.h gives the plain name
  };
  // Base names, as callers ask. Required entry points are served at any
  // version (a 12.x driver has an older variant with the same signature);
  // optional ones only from the version that introduced them.
#define MOCK_REQUIRED(name, abi) {#name, 0, reinterpret_cast<void*>(&name), false},
#define MOCK_OPTIONAL(name, abi) {#name, abi, reinterpret_cast<void*>(&name), false},
  static const entry table[] = {
      CUFORGE_CUDA_REQUIRED_FUNCTIONS(MOCK_REQUIRED) CUFORGE_CUDA_OPTIONAL_FUNCTIONS(MOCK_OPTIONAL)
      // As the real driver: newer variants behind old names, for callers
      // that ask at or above their version.
      {"cuCtxSynchronize", 13000, reinterpret_cast<void*>(&ctx_synchronize_v13000), true},
      {"cuCtxGetDevice", 13000, reinterpret_cast<void*>(&ctx_get_device_v13000), true},
      {"cuStreamGetCtx", 12050, reinterpret_cast<void*>(&stream_get_ctx_v12050), true},
  };
#undef MOCK_REQUIRED
#undef MOCK_OPTIONAL
  if (env_int("CUFORGE_MOCK_NO_GET_PROC_ADDRESS", 0)) return CUDA_ERROR_NOT_SUPPORTED;
  if (!symbol || !pfn) return CUDA_ERROR_INVALID_VALUE;
  *pfn = nullptr;
  if (version > driver_version()) return CUDA_ERROR_INVALID_VALUE;
  const entry* best = nullptr;
  for (const entry& e : table)
    if (std::strcmp(e.name, symbol) == 0 && e.since <= version && (!best || e.since > best->since)) best = &e;
  {
    lock l(g().mu);
    cuforge_mock_stats& st = g().stats;
    st.get_proc_address_calls++;
    st.get_proc_address_max_version = std::max(st.get_proc_address_max_version, version);
    st.get_proc_address_flags_seen |= flags;
    if (best && best->newer) st.newer_variants_handed_out++;
  }
  if (!best || hidden(symbol)) {
    if (status) *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_ERROR_NOT_FOUND;
  }
  *pfn = best->fn;
  if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
  return CUDA_SUCCESS;
}

}  // extern "C"
