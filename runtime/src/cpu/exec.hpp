#pragma once

/// @file
/// The cpu backend's execution engine: runs one kernel launch with CUDA's
/// execution model. Blocks are spread over a pool of worker threads (one per
/// core; the calling thread works too); the threads of a block are
/// cooperative fibers on one worker, switched at barriers; each block gets
/// its own zeroed shared memory. Kernels that use no barrier run their
/// threads as a plain loop. A cooperative launch runs all of its threads as
/// fibers of one scheduler so that a grid barrier can hold them all.

#include <cuforge/runtime/cpu_kernel.hpp>
#include <cuforge/runtime/launch.hpp>

#include <cstddef>
#include <vector>

namespace cuforge::detail::cpu_exec {

struct grid_launch {
  cpu::kernel_fn fn = nullptr;
  cpu::kernel_fn block_fn = nullptr;  ///< cpu_kernel_symbol::block_fn
  bool block_runs = false;            ///< cpu_kernel_symbol::block_runs
  dim3 grid;
  dim3 block;
  std::size_t static_shared_bytes = 0;
  std::size_t dynamic_shared_bytes = 0;
  void** params = nullptr;
  bool uses_barrier = true;
  bool cooperative = false;
  /// The kernel's array parameters (cpu_kernel_symbol::arrays) and its slot count: with a
  /// private sum among them and work enough, each worker adds into a copy of its own.
  const std::vector<cpu::array_param>* arrays = nullptr;
  std::size_t param_count = 0;
};

/// @brief Runs every thread of the launch; returns when all have finished.
/// Safe to call from several threads at once (launches from several streams).
/// @throws cuda_error CUDA_ERROR_LAUNCH_FAILED carrying the message of the
///         first exception a kernel thread raised (the other threads still
///         run to completion; a thread that threw counts as exited).
void run(const grid_launch& launch);

/// @brief The number of threads that run the blocks of a launch
/// (CUFORGE_CPU_THREADS, else the cores): the calling thread and
/// worker_count() - 1 pool threads.
unsigned worker_count();

/// @brief The most threads a cooperative launch may have in total.
unsigned long long max_cooperative_threads();

}  // namespace cuforge::detail::cpu_exec
