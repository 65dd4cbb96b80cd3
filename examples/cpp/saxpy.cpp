// The C++ API alone: allocate device memory, copy in, launch a kernel, copy
// out, free. The same program runs on a GPU (the PTX nvcc built) and on the
// cpu backend (the host build of the same kernel).
#include <cuforge/runtime/backend.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/event.hpp>
#include <cuforge/runtime/launch.hpp>
#include <cuforge/runtime/memory_ops.hpp>
#include <cuforge/runtime/module.hpp>
#include <cuforge/runtime/portable_kernel.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

#include "saxpy_kernel.inc"

extern const char saxpy_ptx[];  // embedded at build time

int main() {
  using namespace cuforge;
  std::printf("backend: %s (%s)\n", std::string(to_string(active_backend())).c_str(), backend_reason().c_str());
  auto dev = device::current();
  std::printf("device %d: %s, compute capability %d.%d\n", dev.ordinal(), dev.name().c_str(), dev.cc().major,
              dev.cc().minor);

  // One image, both targets: load picks what the active backend runs.
  auto image = module_image::from_ptx(saxpy_ptx).add(module_image::from_host({CUFORGE_HOST_KERNEL(saxpy)}));
  auto mod = module::load(image);
  auto k = mod.get_kernel("saxpy");

  const int n = 1 << 20;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i);
    y[i] = 1.0f;
  }

  stream s;
  auto* d_x = static_cast<float*>(mem::alloc_device(n * sizeof(float), dev.ordinal()));
  auto* d_y = static_cast<float*>(mem::alloc_device(n * sizeof(float), dev.ordinal()));
  mem::copy(d_x, x.data(), n * sizeof(float), s);
  mem::copy(d_y, y.data(), n * sizeof(float), s);

  event start, stop;
  start.record(s);
  launch(k, launch_config{.grid = 256, .block = 256, .stream = s}, d_y, static_cast<const float*>(d_x), 2.0f, n);
  stop.record(s);
  mem::copy(y.data(), d_y, n * sizeof(float), s);
  s.synchronize();

  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += std::fabs(y[i] - (2.0f * i + 1.0f)) > 1e-3f * (1.0f + 2.0f * i);
  std::printf("saxpy over %d elements: %s, kernel %.3f ms\n", n, wrong ? "WRONG" : "correct", start.elapsed_ms(stop));

  mem::free_device(d_x, dev.ordinal());
  mem::free_device(d_y, dev.ordinal());
  return wrong ? 1 : 0;
}
