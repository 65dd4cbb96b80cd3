// nvcc side of the devicearray kernels.
#include <cuforge/runtime/portable_kernel.hpp>

#include "strided_copy.inc"
