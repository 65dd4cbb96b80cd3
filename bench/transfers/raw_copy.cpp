// The baseline of bench/transfers: raw copies with nothing of cuforge in the
// way. On the cuda backend, the driver's synchronous cuMemcpyHtoD/DtoH from
// pageable and from cuMemHostAlloc'ed memory, the driver loaded here with
// dlopen on its own; on the cpu backend, memcpy (what that backend's copies
// are). Prints one JSON object per size: median seconds per copy.
//
//   bench_raw_copy cuda|cpu SIZE [SIZE...]
#include <cuda.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

struct raw_driver {
  decltype(&::cuInit) init;
  decltype(&::cuDeviceGet) device_get;
  decltype(&::cuDevicePrimaryCtxRetain) retain;
  decltype(&::cuCtxSetCurrent) set_current;
  decltype(&::cuMemAlloc) alloc;
  decltype(&::cuMemFree) free;
  decltype(&::cuMemHostAlloc) host_alloc;
  decltype(&::cuMemFreeHost) free_host;
  decltype(&::cuMemcpyHtoD) htod;
  decltype(&::cuMemcpyDtoH) dtoh;
};

template <class F>
void resolve(void* lib, F& fn, const char* name) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  if (!fn) {
    std::fprintf(stderr, "bench_raw_copy: %s not found in the driver\n", name);
    std::exit(2);
  }
}

void check(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "bench_raw_copy: %s failed with %d\n", what, static_cast<int>(r));
    std::exit(2);
  }
}

int reps_for(std::size_t bytes) {
  std::size_t r = (std::size_t{512} << 20) / std::max<std::size_t>(bytes, 1);
  return static_cast<int>(std::clamp<std::size_t>(r, 5, 2000));
}

double median_seconds(int reps, const std::function<void()>& op) {
  op();  // warm-up: first-touch, lazy mappings
  std::vector<double> t(reps);
  for (auto& s : t) {
    auto a = std::chrono::steady_clock::now();
    op();
    s = std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
  }
  std::nth_element(t.begin(), t.begin() + reps / 2, t.end());
  return t[reps / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: bench_raw_copy cuda|cpu SIZE [SIZE...]\n");
    return 2;
  }
  bool cuda = std::strcmp(argv[1], "cuda") == 0;
  raw_driver d{};
  if (cuda) {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      std::fprintf(stderr, "bench_raw_copy: %s\n", dlerror());
      return 2;
    }
    resolve(lib, d.init, "cuInit");
    resolve(lib, d.device_get, "cuDeviceGet");
    resolve(lib, d.retain, "cuDevicePrimaryCtxRetain");
    resolve(lib, d.set_current, "cuCtxSetCurrent");
    resolve(lib, d.alloc, "cuMemAlloc_v2");
    resolve(lib, d.free, "cuMemFree_v2");
    resolve(lib, d.host_alloc, "cuMemHostAlloc");
    resolve(lib, d.free_host, "cuMemFreeHost");
    resolve(lib, d.htod, "cuMemcpyHtoD_v2");
    resolve(lib, d.dtoh, "cuMemcpyDtoH_v2");
    CUdevice dev;
    CUcontext ctx;
    check(d.init(0), "cuInit");
    check(d.device_get(&dev, 0), "cuDeviceGet");
    check(d.retain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check(d.set_current(ctx), "cuCtxSetCurrent");
  }
  for (int i = 2; i < argc; ++i) {
    std::size_t bytes = std::strtoull(argv[i], nullptr, 10);
    int reps = reps_for(bytes);
    std::vector<char> pageable(bytes, 1), pageable_out(bytes, 0);
    double h2d_pageable, h2d_pinned, d2h_pageable, d2h_pinned;
    if (cuda) {
      CUdeviceptr dptr;
      void* pinned = nullptr;
      check(d.alloc(&dptr, bytes), "cuMemAlloc");
      check(d.host_alloc(&pinned, bytes, 0), "cuMemHostAlloc");
      std::memset(pinned, 1, bytes);
      h2d_pageable = median_seconds(reps, [&] { check(d.htod(dptr, pageable.data(), bytes), "cuMemcpyHtoD"); });
      h2d_pinned = median_seconds(reps, [&] { check(d.htod(dptr, pinned, bytes), "cuMemcpyHtoD"); });
      d2h_pageable = median_seconds(reps, [&] { check(d.dtoh(pageable_out.data(), dptr, bytes), "cuMemcpyDtoH"); });
      d2h_pinned = median_seconds(reps, [&] { check(d.dtoh(pinned, dptr, bytes), "cuMemcpyDtoH"); });
      d.free(dptr);
      d.free_host(pinned);
    } else {
      std::vector<char> device(bytes, 0), pinned(bytes, 1);
      h2d_pageable = median_seconds(reps, [&] { std::memcpy(device.data(), pageable.data(), bytes); });
      h2d_pinned = median_seconds(reps, [&] { std::memcpy(device.data(), pinned.data(), bytes); });
      d2h_pageable = median_seconds(reps, [&] { std::memcpy(pageable_out.data(), device.data(), bytes); });
      d2h_pinned = median_seconds(reps, [&] { std::memcpy(pinned.data(), device.data(), bytes); });
    }
    std::printf("{\"size\": %zu, \"reps\": %d, \"h2d_pageable\": %.9g, \"h2d_pinned\": %.9g, "
                "\"d2h_pageable\": %.9g, \"d2h_pinned\": %.9g}\n",
                bytes, reps, h2d_pageable, h2d_pinned, d2h_pageable, d2h_pinned);
    std::fflush(stdout);
  }
  return 0;
}
