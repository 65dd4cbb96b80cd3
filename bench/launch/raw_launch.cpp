// The GPU baseline of bench/launch: cuLaunchKernel in a C++ loop with
// nothing of cuforge in the way (the driver loaded here with dlopen on its
// own), for a kernel taking 1-D arrays under cuforge's ABI: three 8-byte
// parameters per array (data pointer, extent, byte stride). Prints one JSON
// object: the median over 5 repetitions of seconds per launch, each
// repetition `launches` launches on the default stream and one synchronize.
//
//   bench_raw_launch PTX_FILE ENTRY ARRAYS LAUNCHES
#include <cuda.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct raw_driver {
  decltype(&::cuInit) init;
  decltype(&::cuDeviceGet) device_get;
  decltype(&::cuDevicePrimaryCtxRetain) retain;
  decltype(&::cuCtxSetCurrent) set_current;
  decltype(&::cuCtxSynchronize) synchronize;
  decltype(&::cuModuleLoadData) module_load;
  decltype(&::cuModuleGetFunction) get_function;
  decltype(&::cuMemAlloc) alloc;
  decltype(&::cuLaunchKernel) launch;
};

template <class F>
void resolve(void* lib, F& fn, const char* name) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  if (!fn) {
    std::fprintf(stderr, "bench_raw_launch: %s not found in the driver\n", name);
    std::exit(2);
  }
}

void check(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "bench_raw_launch: %s failed with %d\n", what, static_cast<int>(r));
    std::exit(2);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: bench_raw_launch PTX_FILE ENTRY ARRAYS LAUNCHES\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "bench_raw_launch: cannot read %s\n", argv[1]);
    return 2;
  }
  std::string ptx((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const char* entry = argv[2];
  int arrays = std::atoi(argv[3]);
  long launches = std::atol(argv[4]);
  if (arrays < 0 || launches <= 0) {
    std::fprintf(stderr, "bench_raw_launch: ARRAYS must be >= 0 and LAUNCHES > 0\n");
    return 2;
  }

  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::fprintf(stderr, "bench_raw_launch: %s\n", dlerror());
    return 2;
  }
  raw_driver d{};
  resolve(lib, d.init, "cuInit");
  resolve(lib, d.device_get, "cuDeviceGet");
  resolve(lib, d.retain, "cuDevicePrimaryCtxRetain");
  resolve(lib, d.set_current, "cuCtxSetCurrent");
  resolve(lib, d.synchronize, "cuCtxSynchronize");
  resolve(lib, d.module_load, "cuModuleLoadData");
  resolve(lib, d.get_function, "cuModuleGetFunction");
  resolve(lib, d.alloc, "cuMemAlloc_v2");
  resolve(lib, d.launch, "cuLaunchKernel");
  CUdevice dev;
  CUcontext ctx;
  CUmodule mod;
  CUfunction fn;
  check(d.init(0), "cuInit");
  check(d.device_get(&dev, 0), "cuDeviceGet");
  check(d.retain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(d.set_current(ctx), "cuCtxSetCurrent");
  check(d.module_load(&mod, ptx.c_str()), "cuModuleLoadData");
  check(d.get_function(&fn, mod, entry), "cuModuleGetFunction");

  CUdeviceptr buf;
  check(d.alloc(&buf, 32 * sizeof(float)), "cuMemAlloc");
  std::vector<unsigned long long> slots;
  for (int i = 0; i < arrays; ++i) {
    slots.push_back(buf);
    slots.push_back(32);              // extent
    slots.push_back(sizeof(float));   // byte stride
  }
  std::vector<void*> params(slots.size());
  for (std::size_t i = 0; i < slots.size(); ++i) params[i] = &slots[i];
  void** p = params.empty() ? nullptr : params.data();

  auto run = [&](long n) {
    auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < n; ++i) check(d.launch(fn, 1, 1, 1, 32, 1, 1, 0, nullptr, p, nullptr), "cuLaunchKernel");
    check(d.synchronize(), "cuCtxSynchronize");
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / static_cast<double>(n);
  };
  run(std::max(10L, launches / 10));  // warm-up: module upload, first launch
  std::vector<double> t;
  for (int r = 0; r < 5; ++r) t.push_back(run(launches));
  std::sort(t.begin(), t.end());
  std::printf("{\"seconds_per_launch\": %.9g, \"arrays\": %d, \"launches\": %ld}\n", t[2], arrays, launches);
  return 0;
}
