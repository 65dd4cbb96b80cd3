#pragma once

/// @file
/// Private sums: for a kernel that only adds into an array with atomics
/// whose results it ignores (the compiler marks such parameters,
/// cpu::array_param), each worker of a launch adds into a zeroed copy of its
/// own and adds the copy into the array once it has no blocks left. A
/// histogram's `cuda.atomic.add(bins, v, 1)` then costs a plain add instead
/// of a locked one whose cache line bounces between the cores.
///
/// Sound because the kernel never reads the array (not even an atomic's old
/// value), so no thread can tell when another's adds land; integer adds give
/// the same result in any order, float adds a result a GPU's order could
/// give too. An array that overlaps another array parameter is left shared.

#include <cuforge/runtime/cpu_kernel.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

namespace cuforge::detail::cpu_exec {

/// One array of a launch that its workers sum privately.
struct private_sum {
  std::uint32_t slot = 0;       ///< its data pointer's parameter slot
  std::uint32_t arg = 0;        ///< the argument it is (below 64: thread_context::private_sums' bit)
  std::uint8_t itemsize = 0;    ///< 4 or 8
  bool is_float = false;
  char* lo = nullptr;           ///< the lowest byte of the array (data, unless a stride is negative)
  std::size_t bytes = 0;        ///< from lo to one past the last element's last byte
  std::size_t data_offset = 0;  ///< the data pointer's distance from lo
  std::size_t copy_offset = 0;  ///< where a worker's copy starts in its buffer (64-byte aligned)
};

/// The most bytes of private copies per worker: small enough to stay in its cache.
inline constexpr std::size_t private_sum_budget = 256 * 1024;

/// Whether private sums are on (CUFORGE_CPU_PRIVATE_SUMS=0 turns them off). Read once.
bool private_sums_enabled() noexcept;

/// The private sums worth making for a launch of `threads` threads whose parameters are
/// `params` (`param_count` slots) and whose array parameters are `arrays`: each sum that is
/// 4- or 8-byte aligned, does not overlap another array parameter, fits the budget with the
/// others, and is not large next to the launch (a copy costs each worker a pass over it).
std::vector<private_sum> plan_private_sums(const std::vector<cpu::array_param>& arrays, void** params,
                                           std::size_t param_count, unsigned long long threads);

/// One worker's copies, made when it claims its first blocks of a launch.
class private_copies {
 public:
  private_copies() = default;
  ~private_copies() { ::operator delete(buffer_, alignment); }
  private_copies(const private_copies&) = delete;
  private_copies& operator=(const private_copies&) = delete;

  /// Zeroes a copy of each planned array and returns the launch's parameters with each
  /// array's data pointer pointing into its copy (valid until the next make).
  void** make(const std::vector<private_sum>& plan, void** params, std::size_t param_count);
  /// thread_context::private_sums for the parameters make returned.
  std::uint64_t mask() const noexcept { return mask_; }
  /// Adds the copies into the arrays: atomically, since other workers add theirs meanwhile.
  void add_into_arrays(const std::vector<private_sum>& plan) const noexcept;

 private:
  static constexpr std::align_val_t alignment{64};
  char* buffer_ = nullptr;
  std::size_t capacity_ = 0;
  std::vector<void*> params_;
  std::vector<void*> data_;  ///< each sum's private data pointer, which params_ points at
  std::uint64_t mask_ = 0;
};

}  // namespace cuforge::detail::cpu_exec
