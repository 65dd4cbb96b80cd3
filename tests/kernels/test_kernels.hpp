#pragma once
// The test kernels as one image: PTX (nvcc at build time) for the cuda
// backend, host functions for the cpu backend.
#include <cuforge/runtime/module.hpp>

namespace cuforge::testing {
module_image test_kernels_image();
}
