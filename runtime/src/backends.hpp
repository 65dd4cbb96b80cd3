#pragma once

/// @file
/// The two backend factories and the CUDA probe used to choose between them.

#include <cuforge/runtime/detail/backend.hpp>

#include <memory>
#include <string>

namespace cuforge::detail {

struct cuda_probe {
  bool usable = false;     ///< the driver loaded, initialised and has a device
  std::string reason;      ///< one line: what was found, or why not
  int driver_version = 0;
  int device_count = 0;
};

/// Loads the driver once (CUFORGE_CUDA_DRIVER names the library to load,
/// else libcuda.so.1 then libcuda.so), calls cuInit and counts devices.
/// Never throws; a stub library counts as no driver.
const cuda_probe& probe_cuda();

/// Only after a usable probe.
std::unique_ptr<backend> make_cuda_backend();
std::unique_ptr<backend> make_cpu_backend();

}  // namespace cuforge::detail
