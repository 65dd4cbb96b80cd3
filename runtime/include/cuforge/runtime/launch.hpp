#pragma once

/// @file
/// Kernel launch: grid, block, dynamic shared memory, stream, cooperative.
/// The configuration is checked before anything is queued, so a bad one is a
/// clear logic_error rather than a driver error code.

#include <cuforge/runtime/export.hpp>
#include <cuforge/runtime/module.hpp>
#include <cuforge/runtime/stream.hpp>

#include <cstddef>

namespace cuforge {

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) noexcept : x(x_), y(y_), z(z_) {}
  constexpr unsigned long long count() const noexcept {
    return static_cast<unsigned long long>(x) * y * z;
  }
};

struct launch_config {
  dim3 grid;
  dim3 block;
  std::size_t shared_bytes = 0;
  stream_view stream{};
  bool cooperative = false;
};

/// @brief Queues `k` on `cfg.stream`. `params` is the driver's
/// kernelParams: one pointer per parameter, to that parameter's value.
/// @throws logic_error for a configuration the device cannot run (zero
///         sizes, too many threads per block, too much shared memory, a
///         cooperative grid larger than can be co-resident), cuda_error when
///         the launch itself fails.
CUFORGE_API void launch(const kernel& k, const launch_config& cfg, void** params);

/// @brief The most blocks of `block` threads (with `shared_bytes` of dynamic
/// shared memory each) a cooperative launch of `k` may have: all co-resident.
CUFORGE_API unsigned long long max_cooperative_blocks(const kernel& k, dim3 block, std::size_t shared_bytes = 0);

/// @brief The block size (a multiple of the warp size, at most the kernel's
/// limit) that gives `k` the most resident threads on its device with
/// `shared_bytes` of dynamic shared memory per block; the largest of equals
/// (what cuOccupancyMaxPotentialBlockSize answers). From the occupancy the
/// backend reports for each candidate.
CUFORGE_API unsigned max_potential_block_size(const kernel& k, std::size_t shared_bytes = 0);

/// @brief Typed convenience: `launch(k, cfg, a, b, n)`.
template <class... Args>
void launch(const kernel& k, const launch_config& cfg, const Args&... args) {
  void* params[sizeof...(Args) + 1] = {const_cast<void*>(static_cast<const void*>(&args))...};
  launch(k, cfg, params);
}

}  // namespace cuforge
