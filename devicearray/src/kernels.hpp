#pragma once
// The devicearray layer's own kernels.
#include <cuforge/runtime/module.hpp>

namespace cuforge::detail {
module_image devicearray_kernels_image();
}
