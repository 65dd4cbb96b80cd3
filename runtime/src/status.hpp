#pragma once

/// @file
/// Raising cuda_error from inside the runtime. The cpu backend raises the
/// CUresult the driver would have returned, so both backends fail alike.

#include <cuforge/runtime/error.hpp>

#include <cuda.h>

#include <source_location>
#include <string>

namespace cuforge::detail {

/// The name of a CUresult ("CUDA_ERROR_INVALID_VALUE"), from our own table:
/// used on the cpu backend and when the driver cannot name a status.
const char* status_name(int status) noexcept;

/// Throws cuda_error(status, status_name(status), message, call).
[[noreturn]] void raise(int status, std::string message, std::string call,
                        std::source_location where = std::source_location::current());

}  // namespace cuforge::detail
