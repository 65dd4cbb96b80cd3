#pragma once

/// @file
/// Running a specialisation compiled for the host target on the host itself,
/// whatever the active backend: no stream, no copies, the caller's memory as
/// it is. The CPU targets of vectorize and guvectorize run their loops this
/// way (one call per NumPy inner loop, split over the cores for 'parallel').

#include <cuforge/jit/compiled_kernel.hpp>
#include <cuforge/runtime/export.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

namespace cuforge::jit {

/// Calls `k`'s host code (compiled_kernel::host_code) once, as the one
/// thread of a one-block grid, on the calling thread. `slots` are its
/// argument slots as the kernel ABI packs them (frontend/abi.hpp), arrays as
/// host addresses; the error record's slot, when it takes one, is added here.
/// @throws kernel_exception when the code raised; logic_error when `k` is not
///         host code or waits at a barrier (no block to wait for);
///         type_error for the wrong number of slots.
CUFORGE_API void call_on_host(compiled_kernel& k, std::span<const std::uint64_t> slots);

/// How many host threads host_parallel_for spreads work over: the
/// environment's `CUFORGE_NUM_THREADS` when set (>= 1), else the cores.
CUFORGE_API unsigned host_workers() noexcept;

/// Runs `fn(i)` for every i in [0, n) over host_workers() threads (the
/// calling thread one of them; a pool kept for the process) and returns
/// when all are done. Calls from several threads at once are served one at
/// a time; a call made from inside `fn` runs serially. The first exception
/// `fn` throws is rethrown here once all have stopped.
CUFORGE_API void host_parallel_for(std::size_t n, const std::function<void(std::size_t)>& fn);

}  // namespace cuforge::jit
