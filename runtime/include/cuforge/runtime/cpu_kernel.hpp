#pragma once

/// @file
/// The contract of a kernel on the cpu backend: a host function taking the
/// launch coordinates of one thread and the kernel's parameters.
///
/// The backend runs a launch with CUDA's execution model: blocks are spread
/// over a pool of worker threads (one per core), and the threads of a block
/// are cooperative fibers on one worker, so a barrier makes every thread of
/// the block reach it before any passes, and each block has its own shared
/// memory. A kernel that declares it uses no barrier runs its threads as a
/// plain loop instead (no fibers, no stack switches).

#include <cuforge/runtime/export.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace cuforge::cpu {

struct uint3 {
  unsigned x = 0, y = 0, z = 0;
};

/// @brief What one thread of a launch sees. Owned by the scheduler; valid
/// only during the call.
struct thread_context {
  uint3 thread_idx;
  uint3 block_idx;
  uint3 block_dim;
  uint3 grid_dim;
  /// This block's shared memory: the kernel's static shared bytes first, the
  /// launch's dynamic shared bytes after them (16-byte aligned), zeroed
  /// before the block starts.
  void* shared = nullptr;
  std::size_t static_shared_bytes = 0;
  std::size_t dynamic_shared_bytes = 0;
  void* scheduler = nullptr;  ///< internal: the fiber running this thread
  /// For a block entry that runs runs of blocks (cpu_kernel_symbol::block_runs): the blocks it
  /// runs in one call, block_idx.x and the next block_run - 1 along x. Otherwise 1.
  unsigned block_run = 1;
  /// Bit i: argument i's array is this worker's private copy of a private sum (array_param),
  /// which no other OS thread touches: its adds need not be atomic. Set by the scheduler.
  std::uint64_t private_sums = 0;

  /// The dynamic shared memory (CUDA's `extern __shared__`).
  void* dynamic_shared() const noexcept {
    return static_cast<char*>(shared) + ((static_shared_bytes + 15) & ~std::size_t{15});
  }
  unsigned linear_thread_id() const noexcept {
    return thread_idx.x + block_dim.x * (thread_idx.y + block_dim.y * thread_idx.z);
  }
};

using kernel_fn = void (*)(thread_context* ctx, void** params);

/// What a block entry writes into each of `ctx->thread_idx`'s coordinates when it runs the
/// ctx->block_run blocks along x as one row of all their threads (a kernel that reads threadIdx.x
/// and blockIdx.x only through cuda.grid's sum): a fault there names the row's blocks, not one.
inline constexpr unsigned row_of_blocks_thread = 0xFFFFFFFEu;

/// @brief An array parameter of a kernel, as the scheduler's private sums
/// see it. A kernel that only ever adds into an array with atomics whose
/// results it ignores (a histogram: `cuda.atomic.add(bins, v, 1)`) may have
/// each worker add into a private zeroed copy, added into the array when the
/// worker is done with the launch: the adds then need no locked instruction
/// and no cache line moves between cores (docs/cpu_execution.md, "Private
/// sums"). The compiler lists a kernel's array parameters only when one of
/// them is such a sum (the others are there so that a sum overlapping them
/// is left shared).
struct array_param {
  enum class use : std::uint8_t {
    other,      ///< read or written as usual
    int_sum,    ///< only atomic adds (and subtracts) of itemsize-byte integers, results unused
    float_sum,  ///< the same, of floats
  };
  std::uint32_t slot = 0;  ///< its data pointer's slot; its ndim extents, then ndim byte strides follow
  std::uint32_t arg = 0;   ///< the kernel argument it is (thread_context::private_sums' bit)
  std::uint8_t ndim = 0;
  use how = use::other;
  std::uint32_t itemsize = 0;  ///< its element size in bytes (a sum's: 4 or 8)
};

/// @brief What a kernel thread throws to end early, once it has reported
/// why (a compiled kernel's raise writes its launch's error record first).
/// The scheduler ends that thread and the launch goes on, as a thread that
/// executes `exit` on a GPU; any other exception fails the launch.
struct thread_exit {};

/// @brief The thread context of the fiber running now, or nullptr outside a
/// cpu-backend kernel.
CUFORGE_API thread_context* current() noexcept;

}  // namespace cuforge::cpu

extern "C" {
/// Block barrier (`__syncthreads`). Threads that have returned count as
/// arrived, so an early `return` before a barrier does not hang the block.
CUFORGE_API void cuforge_cpu_syncthreads(cuforge::cpu::thread_context* ctx);
/// Grid barrier, for cooperative launches only: every thread of the grid
/// reaches it before any passes. Outside a cooperative launch it raises an
/// error rather than hang.
CUFORGE_API void cuforge_cpu_grid_sync(cuforge::cpu::thread_context* ctx);

/// The warp operations. A warp is 32 consecutive linear thread ids of a
/// block, as on a GPU. Each takes the member mask of CUDA's `*_sync`
/// functions: the caller waits until every lane of `mask` has called one
/// with the same mask or exited, and the result is over those lanes (its
/// members). Lanes that exited, or that a partial warp lacks, count as
/// arrived; a caller outside its own mask (undefined on a GPU) is read as in
/// it; lanes disagreeing on a mask end in the barrier deadlock error, not a
/// hang.
/// Warp barrier (`__syncwarp`).
CUFORGE_API void cuforge_cpu_syncwarp(cuforge::cpu::thread_context* ctx, std::uint32_t mask);
/// Every member offers `value`; returns lane `src`'s (this lane's own when
/// `src` is not a member). The shuffles.
CUFORGE_API std::uint64_t cuforge_cpu_warp_shuffle(cuforge::cpu::thread_context* ctx, std::uint32_t mask,
                                                   std::uint64_t value, std::int32_t src);
/// Every member offers `pred`; returns the ballot (bit i: member i's was
/// non-zero) in the low 32 bits, the members in the high 32.
CUFORGE_API std::uint64_t cuforge_cpu_warp_vote(cuforge::cpu::thread_context* ctx, std::uint32_t mask,
                                                std::int32_t pred);
/// Every member offers `value`; returns the members whose value equals this
/// lane's in the low 32 bits, the members in the high 32.
CUFORGE_API std::uint64_t cuforge_cpu_warp_match(cuforge::cpu::thread_context* ctx, std::uint32_t mask,
                                                 std::uint64_t value);
/// The lanes of the caller's warp that have not exited.
CUFORGE_API std::uint32_t cuforge_cpu_warp_active(cuforge::cpu::thread_context* ctx);
}

namespace cuforge::cpu {

inline void syncthreads(thread_context* ctx) { cuforge_cpu_syncthreads(ctx); }
inline void grid_sync(thread_context* ctx) { cuforge_cpu_grid_sync(ctx); }

namespace detail {
template <auto Fn, class... Args, std::size_t... I>
void unpack(thread_context* ctx, void** params, void (*)(thread_context*, Args...),
            std::index_sequence<I...>) {
  Fn(ctx, *static_cast<std::remove_cvref_t<Args>*>(params[I])...);
}
template <auto Fn, class... Args, std::size_t... I>
void unpack(thread_context*, void** params, void (*)(Args...), std::index_sequence<I...>) {
  Fn(*static_cast<std::remove_cvref_t<Args>*>(params[I])...);
}
template <class... Args>
constexpr std::size_t arity(void (*)(thread_context*, Args...)) { return sizeof...(Args); }
template <class... Args>
constexpr std::size_t arity(void (*)(Args...)) { return sizeof...(Args); }
template <class... Args>
std::vector<std::size_t> sizes(void (*)(thread_context*, Args...)) {
  return {sizeof(std::remove_cvref_t<Args>)...};
}
template <class... Args>
std::vector<std::size_t> sizes(void (*)(Args...)) {
  return {sizeof(std::remove_cvref_t<Args>)...};
}
}  // namespace detail

/// @brief The size of each parameter of a typed kernel (for
/// cpu_kernel_symbol::param_sizes).
template <auto Fn>
std::vector<std::size_t> param_sizes() {
  return detail::sizes(Fn);
}

/// @brief Adapts a typed kernel, `void k(thread_context*, A0, A1, ...)` or
/// `void k(A0, A1, ...)` (coordinates through cpu::current()), to kernel_fn:
/// `cpu::entry<&k>`. The parameters arrive as the driver passes them: an
/// array of pointers to each argument's value.
template <auto Fn>
void entry(thread_context* ctx, void** params) {
  detail::unpack<Fn>(ctx, params, Fn, std::make_index_sequence<detail::arity(Fn)>{});
}

}  // namespace cuforge::cpu
