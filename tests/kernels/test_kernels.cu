// nvcc side of the test kernels: compiled to PTX at build time.
#include <cuforge/runtime/portable_kernel.hpp>

#include "test_kernels.inc"
