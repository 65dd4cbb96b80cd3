#pragma once

/// @file
/// Which backend serves this process. The choice is made once, at first use:
/// `CUFORGE_BACKEND=cuda|cpu|auto` (default auto: the CUDA driver when it
/// loads and reports a device, else the cpu backend). It never changes
/// afterwards, since pointers and handles of one backend mean nothing to the
/// other.

#include <cuforge/runtime/export.hpp>
#include <cuforge/runtime/module.hpp>

#include <string>
#include <string_view>

namespace cuforge {

enum class backend_kind { cuda, cpu };

CUFORGE_API std::string_view to_string(backend_kind kind) noexcept;

/// @brief The backend of this process, selected on first call.
/// @throws cuda_error when CUFORGE_BACKEND=cuda but no usable driver exists,
///         logic_error when CUFORGE_BACKEND holds an unknown value.
CUFORGE_API backend_kind active_backend();

/// @brief What the layers above the runtime need to know of a backend,
/// asked instead of which backend it is: code outside the backends reads
/// these traits and never branches on backend_kind.
struct backend_traits {
  /// The image format its kernels are loaded from: module_image::format::ptx
  /// (the driver compiles PTX for the device) or module_image::format::host
  /// (host code the cpu backend's engine runs). The compiler targets the one
  /// it names.
  module_image::format kernel_format = module_image::format::ptx;
  /// Device memory is this process's host memory (the cpu backend). Then
  /// arrays export to DLPack as kDLCPU and are not offered through
  /// __cuda_array_interface__ (CUDA consumers must not get host pointers),
  /// host tensors import as device memory, and kernels read foreign pointers
  /// directly, so an import checks that they are mapped in this process.
  bool device_memory_is_host = false;
};

/// @brief The active backend's traits (selects the backend on first call).
CUFORGE_API const backend_traits& active_traits();

/// @brief One line saying why the active backend was chosen.
CUFORGE_API std::string backend_reason();

/// @brief Whether a CUDA driver loads and reports at least one device. Probes
/// without selecting a backend; the answer is cached.
CUFORGE_API bool cuda_driver_usable();

/// @brief The CUDA driver's version (e.g. 13000), or 0 on the cpu backend.
CUFORGE_API int driver_version();

}  // namespace cuforge
