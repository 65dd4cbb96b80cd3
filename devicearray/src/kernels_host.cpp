// The devicearray kernels as one image: PTX for the cuda backend (built by
// nvcc at build time), host code for the cpu backend.
#include "kernels.hpp"

#include <cuforge/runtime/portable_kernel.hpp>

#include "../kernels/strided_copy.inc"

extern const char cuforge_devicearray_kernels[];

namespace cuforge::detail {

module_image devicearray_kernels_image() {
  auto copy = CUFORGE_HOST_KERNEL(cuforge_strided_copy);
  copy.uses_barrier = false;
  return module_image::from_ptx(cuforge_devicearray_kernels).add(module_image::from_host({copy}));
}

}  // namespace cuforge::detail
