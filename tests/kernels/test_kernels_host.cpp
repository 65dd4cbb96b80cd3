// Host side of the test kernels, and the image holding both sides.
#include "test_kernels.hpp"

#include <cuforge/runtime/portable_kernel.hpp>

#include "test_kernels.inc"

extern const char cuforge_test_kernels[];

namespace cuforge::testing {

module_image test_kernels_image() {
  std::vector<cpu_kernel_symbol> host = {
      CUFORGE_HOST_KERNEL(vector_add),       CUFORGE_HOST_KERNEL(block_sum),
      CUFORGE_HOST_KERNEL(barrier_handshake), CUFORGE_HOST_KERNEL(histogram),
      CUFORGE_HOST_KERNEL(fill_int),         CUFORGE_HOST_KERNEL(slow_increment),
  };
  // Only these need no barrier: let the scheduler run them as loops.
  for (auto& k : host)
    k.uses_barrier = k.name == "block_sum" || k.name == "barrier_handshake";
  return module_image::from_ptx(cuforge_test_kernels).add(module_image::from_host(std::move(host)));
}

}  // namespace cuforge::testing
