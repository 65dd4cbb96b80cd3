// Loading the CUDA driver and checking its calls.
#include "cuda/driver.hpp"

#include "status.hpp"

#if __has_include(<cudaProfiler.h>)  // else driver.hpp declares the profiler's two PFN types
#include <cudaProfilerTypedefs.h>
#endif
#include <cudaTypedefs.h>
#include <dlfcn.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <type_traits>

namespace cuforge::detail::cuda {

namespace internal {
std::atomic<const driver*> loaded{nullptr};
}  // namespace internal

namespace {

// cuda.h maps most names to a versioned symbol (cuMemAlloc -> cuMemAlloc_v2);
// the second expansion yields the name the dlsym fallback looks for.
#define CUFORGE_CUDA_STR_(x) #x
#define CUFORGE_CUDA_STR(x) CUFORGE_CUDA_STR_(x)

// The ABI each entry is asked for is the one its table member is typed
// with: a wrong version in the list is a compile error here.
#define CUFORGE_CUDA_CHECK_ABI(name, abi)                               \
  static_assert(std::is_same_v<decltype(&::name), PFN_##name##_v##abi>, \
                #name ": cuda.h declares a different ABI than version " #abi);
CUFORGE_CUDA_REQUIRED_FUNCTIONS(CUFORGE_CUDA_CHECK_ABI)
CUFORGE_CUDA_OPTIONAL_FUNCTIONS(CUFORGE_CUDA_CHECK_ABI)
#undef CUFORGE_CUDA_CHECK_ABI
// Required entries whose ABI is newer than the oldest driver we accept get
// an older variant there: it must have the same signature.
static_assert(std::is_same_v<PFN_cuEventElapsedTime_v12080, PFN_cuEventElapsedTime_v2000>);

constexpr int oldest_supported_driver = 12000;
constexpr const char* stub_reason = "stub driver library (no GPU driver installed)";

// Constant-initialised (all null), filled once inside load(); error_name()
// reads it, so it must exist before any dynamic initialiser runs.
driver table;

std::string dl_error(const std::string& fallback) {
  const char* e = dlerror();
  return e ? std::string(e) : fallback;
}

struct resolver {
  void* lib = nullptr;
  decltype(&::cuGetProcAddress) get_proc_address = nullptr;  ///< null: dlsym only
  int driver_version = 0;

  // The variant of `abi`, or on an older driver the newest it has below
  // that (checked above to share the signature). Legacy-stream variants:
  // the per-thread default stream is reached by passing CU_STREAM_PER_THREAD
  // (0x2) explicitly, never through _ptsz entry points, under which a null
  // stream would quietly mean the per-thread stream.
  void* ask(const char* base_name, int abi) const {
    void* fn = nullptr;
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult r = get_proc_address(base_name, &fn, std::min(abi, driver_version),
                                  CU_GET_PROC_ADDRESS_LEGACY_STREAM, &found);
    return r == CUDA_SUCCESS && found == CU_GET_PROC_ADDRESS_SUCCESS ? fn : nullptr;
  }

  void* find(const char* base_name, int abi, const char* versioned_name) const {
    if (get_proc_address) return ask(base_name, abi);
    // The exact versioned name of our header has the header's signature.
    return dlsym(lib, versioned_name);
  }
};

struct attempt {
  load_result result;
  bool opened = false;  ///< dlopen found the library (its verdict stands)
};

attempt open_driver(const std::string& name) {
  attempt a;
  load_result& r = a.result;
  r.library = name;

  void* lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    r.error = dl_error(name + ": cannot be loaded");
    return a;
  }
  a.opened = true;
  // Before cuInit nothing of the driver runs, so unloading is still safe.
  auto give_up = [&](std::string why) {
    r.error = std::move(why);
    dlclose(lib);
    return a;
  };

  auto get_version = reinterpret_cast<decltype(&::cuDriverGetVersion)>(dlsym(lib, "cuDriverGetVersion"));
  if (!get_version) return give_up(name + " is not a CUDA driver (it has no cuDriverGetVersion)");
  int version = 0;
  CUresult st = get_version(&version);
  if (st == CUDA_ERROR_STUB_LIBRARY) {
    r.stub = true;
    return give_up(stub_reason);
  }
  if (st != CUDA_SUCCESS) return give_up(std::string("cuDriverGetVersion failed: ") + status_name(st));
  r.version = version;
  if (version < oldest_supported_driver)
    return give_up("CUDA driver " + version_string(version) + " is older than " +
                   version_string(oldest_supported_driver) + ", the oldest cuforge supports");

  resolver res;
  res.lib = lib;
  res.get_proc_address =
      reinterpret_cast<decltype(&::cuGetProcAddress)>(dlsym(lib, CUFORGE_CUDA_STR(cuGetProcAddress)));
  res.driver_version = version;  // asking above it is an error
  r.abi_version = std::min(CUDA_VERSION, version);
  // A cuGetProcAddress that cannot find cuInit is broken, not selective:
  // then the versioned names are all we trust, for every entry point.
  if (res.get_proc_address && !res.ask("cuInit", 2000)) res.get_proc_address = nullptr;
  r.via_get_proc_address = res.get_proc_address != nullptr;

  driver t;
  std::string missing;
#define CUFORGE_CUDA_RESOLVE(name, abi)                                                      \
  t.name = reinterpret_cast<decltype(t.name)>(res.find(#name, abi, CUFORGE_CUDA_STR(name))); \
  if (!t.name) missing += missing.empty() ? #name : ", " #name;
  CUFORGE_CUDA_REQUIRED_FUNCTIONS(CUFORGE_CUDA_RESOLVE)
  if (!missing.empty())
    return give_up("the CUDA driver in " + name + " (" + version_string(version) + ") lacks " + missing);
  CUFORGE_CUDA_OPTIONAL_FUNCTIONS(CUFORGE_CUDA_RESOLVE)
#undef CUFORGE_CUDA_RESOLVE

  table = t;
  st = table.cuInit(0);
  if (st == CUDA_ERROR_STUB_LIBRARY) {
    r.stub = true;
    r.error = stub_reason;
    return a;
  }
  if (st != CUDA_SUCCESS) {
    // The library stays loaded: a driver that has run cuInit may have
    // threads and handlers we must not pull the code out from under.
    r.error = "cuInit failed: " + error_name(st);
    if (std::string text = error_string(st); !text.empty()) r.error += " (" + text + ")";
    return a;
  }
  r.table = &table;
  return a;
}

load_result load_once() {
  if (const char* env = std::getenv("CUFORGE_CUDA_DRIVER"); env && *env) return open_driver(env).result;
  attempt first = open_driver("libcuda.so.1");
  if (first.opened) return std::move(first.result);
  attempt second = open_driver("libcuda.so");
  // Neither exists: why the versioned name (the one a driver install
  // provides) is missing says the most.
  return second.opened ? std::move(second.result) : std::move(first.result);
}

}  // namespace

std::string version_string(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

const load_result& load() noexcept {
  static const load_result result = []() noexcept {
    load_result r;
    try {
      r = load_once();
    } catch (const std::exception& e) {
      r = {};
      r.error = std::string("loading the CUDA driver failed: ") + e.what();
    }
    if (r.table) internal::loaded.store(r.table, std::memory_order_release);
    return r;
  }();
  return result;
}

namespace internal {
const driver& load_or_throw() {
  const load_result& r = load();
  if (r.table) return *r.table;
  raise(CUDA_ERROR_NOT_INITIALIZED, "the CUDA driver is not usable: " + r.error, "cuda driver load");
}
}  // namespace internal

std::string error_name(CUresult status) {
  const char* s = nullptr;
  if (table.cuGetErrorName && table.cuGetErrorName(status, &s) == CUDA_SUCCESS && s) return s;
  return status_name(status);
}

std::string error_string(CUresult status) {
  const char* s = nullptr;
  if (table.cuGetErrorString && table.cuGetErrorString(status, &s) == CUDA_SUCCESS && s) return s;
  return {};
}

std::string describe(const char* fn, std::initializer_list<call_arg> args) {
  std::string s = fn;
  s += '(';
  bool first = true;
  for (const call_arg& a : args) {
    if (!first) s += ", ";
    first = false;
    s += a.name;
    s += '=';
    switch (a.how) {
      case call_arg::form::signed_int: s += std::to_string(a.s); break;
      case call_arg::form::unsigned_int: s += std::to_string(a.u[0]); break;
      case call_arg::form::hex: {
        char buf[24];
        std::snprintf(buf, sizeof buf, "0x%" PRIx64, a.u[0]);
        s += buf;
        break;
      }
      case call_arg::form::text: s += a.t; break;
      case call_arg::form::dims:
        s += "(" + std::to_string(a.u[0]) + ", " + std::to_string(a.u[1]) + ", " + std::to_string(a.u[2]) +
             ")";
        break;
    }
  }
  s += ')';
  return s;
}

void fail(CUresult status, std::string call, std::string_view extra, std::source_location where) {
  std::string message = error_string(status);
  if (!extra.empty()) {
    if (!message.empty()) message += '\n';
    message += extra;
  }
  throw cuda_error(static_cast<int>(status), error_name(status), std::move(message), std::move(call), where);
}

void report(CUresult status, const char* fn, std::initializer_list<call_arg> args) noexcept {
  try {
    std::string text = error_string(status);
    std::fprintf(stderr, "cuforge: %s failed: %s%s%s\n", describe(fn, args).c_str(),
                 error_name(status).c_str(), text.empty() ? "" : ": ", text.c_str());
  } catch (...) {
    std::fprintf(stderr, "cuforge: %s failed with CUresult %d\n", fn, static_cast<int>(status));
  }
}

}  // namespace cuforge::detail::cuda
