#pragma once

// The architectural limits of an sm_90 GPU (H100), in one table: the cpu
// backend reports them as its own device's (so code that checks them
// behaves as on the GPUs the compiler targets first) and the mock driver
// (tests/mock_driver) as its mock GPU's. What is not a limit of the
// architecture (multiprocessor count, clocks, integrated, ...) each keeps
// for itself.

#include <cuda.h>

#include <cstddef>
#include <optional>

namespace cuforge::detail::sm90 {

inline constexpr int compute_capability_major = 9;
inline constexpr int compute_capability_minor = 0;
inline constexpr int warp_size = 32;
inline constexpr int max_threads_per_block = 1024;
inline constexpr int max_threads_per_multiprocessor = 2048;
inline constexpr int max_block_dim_xy = 1024;
inline constexpr int max_block_dim_z = 64;
inline constexpr int max_grid_dim_x = 2147483647;
inline constexpr int max_grid_dim_yz = 65535;
inline constexpr int shared_per_block = 48 * 1024;           // without opting in
inline constexpr int shared_per_block_optin = 227 * 1024;    // 232448
inline constexpr int shared_per_multiprocessor = 228 * 1024; // 233472
inline constexpr int total_constant_memory = 64 * 1024;
inline constexpr int registers_per_block = 65536;

/// The value of `a` when it is one of these limits.
constexpr std::optional<int> limit(CUdevice_attribute a) {
  switch (a) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: return compute_capability_major;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: return compute_capability_minor;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: return warp_size;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: return max_threads_per_block;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: return max_threads_per_multiprocessor;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: return max_block_dim_xy;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: return max_block_dim_z;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: return max_grid_dim_x;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: return max_grid_dim_yz;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: return shared_per_block;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: return shared_per_block_optin;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: return shared_per_multiprocessor;
    case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: return total_constant_memory;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: return registers_per_block;
    default: return std::nullopt;
  }
}

}  // namespace cuforge::detail::sm90
