#pragma once

/// @file
/// Devices and their primary contexts. The current device is per host
/// thread, as in the CUDA runtime; every call that needs a device and is
/// given none uses the current one.

#include <cuforge/runtime/export.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cuforge {

struct compute_capability {
  int major = 0;
  int minor = 0;
  friend bool operator==(compute_capability, compute_capability) = default;
  friend auto operator<=>(compute_capability, compute_capability) = default;
};

struct memory_info {
  std::size_t free = 0;
  std::size_t total = 0;
};

/// Device attributes; the values are CUdevice_attribute's, so any attribute
/// of the driver can be asked for by number as well.
enum class device_attribute : int {
  max_threads_per_block = 1,
  max_block_dim_x = 2,
  max_block_dim_y = 3,
  max_block_dim_z = 4,
  max_grid_dim_x = 5,
  max_grid_dim_y = 6,
  max_grid_dim_z = 7,
  max_shared_memory_per_block = 8,
  total_constant_memory = 9,
  warp_size = 10,
  max_registers_per_block = 12,
  clock_rate = 13,
  multiprocessor_count = 16,
  kernel_exec_timeout = 17,
  integrated = 18,
  can_map_host_memory = 19,
  compute_mode = 20,
  concurrent_kernels = 31,
  ecc_enabled = 32,
  pci_bus_id = 33,
  pci_device_id = 34,
  memory_clock_rate = 36,
  global_memory_bus_width = 37,
  l2_cache_size = 38,
  max_threads_per_multiprocessor = 39,
  async_engine_count = 40,
  unified_addressing = 41,
  pci_domain_id = 50,
  compute_capability_major = 75,
  compute_capability_minor = 76,
  stream_priorities_supported = 78,
  managed_memory = 83,
  multi_gpu_board = 84,
  concurrent_managed_access = 89,
  cooperative_launch = 95,
  max_shared_memory_per_block_optin = 97,
  pageable_memory_access = 88,
  memory_pools_supported = 115,
};

/// @brief A device of the active backend, by ordinal. Cheap to copy.
class CUFORGE_API device {
 public:
  /// @brief The number of devices of the active backend.
  static int count();
  /// @throws logic_error when the ordinal is out of range.
  static device get(int ordinal);
  /// @brief This host thread's current device (device 0 until one is selected).
  static device current();
  /// @brief Every device, in ordinal order.
  static std::vector<device> all();

  int ordinal() const noexcept { return ordinal_; }
  std::string name() const;
  compute_capability cc() const;
  int attribute(device_attribute attr) const;
  int attribute(int cu_device_attribute) const;
  std::size_t total_memory() const;
  memory_info memory() const;
  std::string uuid() const;
  std::string pci_bus_id() const;

  /// @brief Makes this device current on the calling thread, retaining its
  /// primary context.
  void make_current() const;
  /// @brief Waits for all work on this device.
  void synchronize() const;
  /// @brief Whether all work on this device has completed, when the backend
  /// can tell without waiting (the cpu backend); nullopt on the driver.
  std::optional<bool> idle() const;

  friend bool operator==(device, device) = default;

 private:
  explicit device(int ordinal) noexcept : ordinal_(ordinal) {}
  int ordinal_;
};

/// @brief Waits for all work on the current device.
CUFORGE_API void synchronize();

/// @brief Releases every context of this process (numba's cuda.close()).
///
/// Objects made before (streams, events, modules, allocations) become
/// invalid: using one raises cuda_error CUDA_ERROR_CONTEXT_IS_DESTROYED
/// rather than touching freed state. New work creates fresh contexts.
CUFORGE_API void close();

/// @brief Whether close() took every allocation with it (the driver's
/// contexts do; the cpu backend leaves memory to its owners).
CUFORGE_API bool close_releases_memory();

/// @brief A counter bumped by close(): handles remember the value at birth.
CUFORGE_API std::uint64_t context_generation() noexcept;

/// @throws cuda_error CUDA_ERROR_CONTEXT_IS_DESTROYED when `generation` is
/// older than the live contexts.
CUFORGE_API void check_generation(std::uint64_t generation, const char* what);

/// @brief True on a thread that is running stream work or a host callback:
/// there, waiting for the device would deadlock (the driver forbids it).
CUFORGE_API bool on_callback_thread() noexcept;

namespace detail {
/// @brief Throws cuda_error CUDA_ERROR_NOT_PERMITTED (what the driver answers
/// a call from a callback) on a callback thread: `what` would wait for the
/// callback itself (a deadlock on the cpu backend, whose stream worker runs it).
CUFORGE_API void refuse_wait_in_callback(const char* what);
}  // namespace detail

CUFORGE_API void profiler_start();
CUFORGE_API void profiler_stop();

}  // namespace cuforge
