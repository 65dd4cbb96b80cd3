#pragma once

/// @file
/// A pool of host threads for work split over the cores: the CPU targets of
/// vectorize/guvectorize (jit/host_call.hpp), the cpu backend's host jit, and
/// the cuda backend's staged copies of pageable memory.

#include <cuforge/runtime/export.hpp>

#include <cstddef>
#include <functional>

namespace cuforge {

/// How many host threads host_parallel_for spreads work over: the
/// environment's `CUFORGE_NUM_THREADS` when set (>= 1), else the cores.
CUFORGE_API unsigned host_workers() noexcept;

/// Runs `fn(i)` for every i in [0, n) over host_workers() threads (the
/// calling thread one of them; a pool kept for the process) and returns
/// when all are done. Calls from several threads at once are served one at
/// a time; a call made from inside `fn` runs serially. The first exception
/// `fn` throws is rethrown here once all have stopped.
CUFORGE_API void host_parallel_for(std::size_t n, const std::function<void(std::size_t)>& fn);

}  // namespace cuforge
