#include <cuforge/runtime/portable_kernel.hpp>

#include "saxpy_kernel.inc"
