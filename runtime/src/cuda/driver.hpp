#pragma once

/// @file
/// The CUDA driver, loaded with dlopen at first use and never linked, so the
/// library builds, loads and runs its cpu backend on machines without one.
///
/// Entry points are resolved once, through cuGetProcAddress (dlsym of the
/// versioned names when it is missing or broken), into a table whose members
/// are typed with `decltype(&::cuXxx)` from the cuda.h we build against. Each
/// is asked for at the ABI version of the variant cuda.h declares, and that
/// pairing is checked against cudaTypedefs.h at compile time, so neither a
/// signature nor a version can drift from the header. The members keep the
/// cuda.h spelling: `drv().cuMemAlloc` names `cuMemAlloc_v2` exactly as a
/// direct call would. Only this folder calls the driver.

#include <cuda.h>
#if __has_include(<cudaProfiler.h>)
#include <cudaProfiler.h>
#else
// NVIDIA's pip package of the driver API headers (nvidia-cuda-runtime, what a
// build without the toolkit compiles against) leaves out cudaProfiler.h: its
// two functions, as the toolkit's header declares them.
extern "C" {
CUresult CUDAAPI cuProfilerStart(void);
CUresult CUDAAPI cuProfilerStop(void);
typedef CUresult(CUDAAPI* PFN_cuProfilerStart_v4000)(void);
typedef CUresult(CUDAAPI* PFN_cuProfilerStop_v4000)(void);
}
#endif

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <source_location>
#include <string>
#include <string_view>
#include <type_traits>

namespace cuforge::detail::cuda {

// Every entry point the cuda backend calls, with the CUDA version that
// introduced the variant cuda.h declares under that name: its ABI. Entry
// points are asked for at that version (never newer, capped by the driver's
// own), because cuGetProcAddress hands out the newest variant at or below
// the version asked for, and some base names have newer variants than the
// header's plain declaration: at 13000 "cuCtxSynchronize" is the variant
// taking a CUcontext, and from 12050 "cuStreamGetCtx" takes a third pointer.
// driver.cpp checks each pair against cudaTypedefs.h's PFN_<name>_v<abi>
// (and, for an ABI newer than 12.0, that the older variant a 12.x driver
// hands out has the same signature). A new entry point goes here (the mock
// driver implements the same list) and nowhere else.
// clang-format off
#define CUFORGE_CUDA_REQUIRED_FUNCTIONS(X)                                                   \
  X(cuGetErrorName, 6000) X(cuGetErrorString, 6000) X(cuInit, 2000)                          \
  X(cuDriverGetVersion, 2020) X(cuDeviceGet, 2000) X(cuDeviceGetCount, 2000)                 \
  X(cuDeviceGetName, 2000) X(cuDeviceGetAttribute, 2000) X(cuDeviceTotalMem, 3020)           \
  X(cuDeviceGetUuid, 11040) X(cuDeviceGetPCIBusId, 4010)                                     \
  X(cuDevicePrimaryCtxRetain, 7000) X(cuDevicePrimaryCtxRelease, 11000)                      \
  X(cuDevicePrimaryCtxReset, 11000) X(cuCtxSetCurrent, 4000) X(cuCtxGetCurrent, 4000)        \
  X(cuCtxGetDevice, 2000) X(cuCtxSynchronize, 2000) X(cuCtxGetStreamPriorityRange, 5050)     \
  X(cuMemGetInfo, 3020) X(cuMemAlloc, 3020) X(cuMemFree, 3020) X(cuMemHostAlloc, 2020)       \
  X(cuMemFreeHost, 2000) X(cuMemHostGetDevicePointer, 3020) X(cuMemAllocManaged, 6000)       \
  X(cuMemHostRegister, 6050) X(cuMemHostUnregister, 4000) X(cuMemcpyAsync, 4000) X(cuMemcpy, 4000)             \
  X(cuMemsetD8Async, 3020) X(cuMemsetD16Async, 3020) X(cuMemsetD32Async, 3020)               \
  X(cuDeviceGetDefaultMemPool, 11020) X(cuMemAllocFromPoolAsync, 11020)                      \
  X(cuMemFreeAsync, 11020) X(cuMemPoolSetAttribute, 11020) X(cuMemPoolTrimTo, 11020)         \
  X(cuPointerGetAttributes, 7000) X(cuStreamCreateWithPriority, 5050)                        \
  X(cuStreamDestroy, 4000) X(cuStreamSynchronize, 2000) X(cuStreamQuery, 2000)               \
  X(cuStreamWaitEvent, 3020) X(cuLaunchHostFunc, 10000) X(cuStreamGetPriority, 5050)         \
  X(cuStreamGetFlags, 5050) X(cuStreamGetCtx, 9020) X(cuEventCreate, 2000)                   \
  X(cuEventDestroy, 4000) X(cuEventRecord, 2000) X(cuEventQuery, 2000)                       \
  X(cuEventSynchronize, 2000) X(cuEventElapsedTime, 12080) X(cuModuleLoadDataEx, 2010)       \
  X(cuModuleUnload, 2000) X(cuModuleGetFunction, 2000) X(cuFuncGetAttribute, 2020)           \
  X(cuFuncSetAttribute, 9000) X(cuOccupancyMaxActiveBlocksPerMultiprocessor, 6050)           \
  X(cuLaunchKernel, 4000) X(cuLaunchCooperativeKernel, 9000) X(cuProfilerStart, 4000)        \
  X(cuProfilerStop, 4000) X(cuIpcGetMemHandle, 4010) X(cuIpcOpenMemHandle, 11000)            \
  X(cuIpcCloseMemHandle, 4010)

// Newer than the oldest driver we accept (12.0): null when the driver lacks them.
#define CUFORGE_CUDA_OPTIONAL_FUNCTIONS(X) X(cuStreamGetDevice, 12080)
// clang-format on

/// The driver's entry points. Resolved once; read-only afterwards.
struct driver {
#define CUFORGE_CUDA_DECLARE(name, abi) decltype(&::name) name = nullptr;
  CUFORGE_CUDA_REQUIRED_FUNCTIONS(CUFORGE_CUDA_DECLARE)
  CUFORGE_CUDA_OPTIONAL_FUNCTIONS(CUFORGE_CUDA_DECLARE)
#undef CUFORGE_CUDA_DECLARE
};

/// What loading the driver found. `table` is set only when the library
/// loaded, every required entry point resolved and cuInit succeeded.
struct load_result {
  const driver* table = nullptr;
  std::string library;  ///< the name given to dlopen
  std::string error;    ///< one line: why the driver is not usable
  bool stub = false;    ///< the toolkit's stub libcuda (no real driver installed)
  int version = 0;      ///< cuDriverGetVersion, e.g. 13000
  int abi_version = 0;  ///< min(CUDA_VERSION, version): no entry point is asked for above it
  bool via_get_proc_address = false;
};

/// Loads the driver on first call (CUFORGE_CUDA_DRIVER names the library,
/// else libcuda.so.1, then libcuda.so) and calls cuInit(0). Thread-safe;
/// never throws; the library is never unloaded once cuInit has run.
const load_result& load() noexcept;

/// "13.0" for 13000.
std::string version_string(int version);

namespace internal {
extern std::atomic<const driver*> loaded;
const driver& load_or_throw();
}  // namespace internal

/// The loaded table. @throws cuda_error when the driver is not usable.
inline const driver& drv() {
  const driver* d = internal::loaded.load(std::memory_order_acquire);
  if (!d) [[unlikely]]
    return internal::load_or_throw();
  return *d;
}

/// One argument of a failed call, for the `call` text of its cuda_error
/// ("cuMemAlloc(bytes=1024)"). Formatted only when the call fails.
struct call_arg {
  enum class form { signed_int, unsigned_int, hex, text, dims };
  const char* name;
  form how;
  std::int64_t s = 0;
  std::uint64_t u[3] = {0, 0, 0};
  std::string_view t;

  // clang-format off
  template <class T>
    requires std::is_integral_v<T>
  call_arg(const char* n, T v) noexcept
      : name(n), how(std::is_signed_v<T> ? form::signed_int : form::unsigned_int) {
    if constexpr (std::is_signed_v<T>)
      s = v;
    else
      u[0] = v;
  }
  // clang-format on
  call_arg(const char* n, const void* p) noexcept
      : name(n), how(form::hex), u{reinterpret_cast<std::uintptr_t>(p), 0, 0} {}
  call_arg(const char* n, const char* text) noexcept : name(n), how(form::text), t(text) {}
  call_arg(const char* n, std::string_view text) noexcept : name(n), how(form::text), t(text) {}
  call_arg(const char* n, unsigned x, unsigned y, unsigned z) noexcept
      : name(n), how(form::dims), u{x, y, z} {}
};

/// "cuMemAlloc(bytes=1024)".
std::string describe(const char* fn, std::initializer_list<call_arg> args);

/// The driver's name and description of a status; our own table names it
/// when the driver cannot.
std::string error_name(CUresult status);
std::string error_string(CUresult status);

/// Throws cuda_error(status, name, driver message [+ "\n" + extra], call).
[[noreturn]] void fail(CUresult status, std::string call, std::string_view extra = {},
                       std::source_location where = std::source_location::current());

/// The one check every driver call goes through.
inline void check(CUresult status, const char* fn, std::initializer_list<call_arg> args = {},
                  std::source_location where = std::source_location::current()) {
  if (status != CUDA_SUCCESS) [[unlikely]]
    fail(status, describe(fn, args), {}, where);
}

/// For paths that must not throw (destructors, frees): the failure as one
/// line on stderr.
void report(CUresult status, const char* fn, std::initializer_list<call_arg> args = {}) noexcept;

}  // namespace cuforge::detail::cuda

/// Calls a driver entry point and checks it, naming the call and its
/// arguments on failure:
///   CUFORGE_CU(cuMemAlloc, (&p, bytes), {"bytes", bytes});
#define CUFORGE_CU(fn, args, ...) \
  ::cuforge::detail::cuda::check(::cuforge::detail::cuda::drv().fn args, #fn, {__VA_ARGS__})
