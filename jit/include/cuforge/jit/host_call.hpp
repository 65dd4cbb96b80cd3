#pragma once

/// @file
/// Running a specialisation compiled for the host target on the host itself,
/// whatever the active backend: no stream, no copies, the caller's memory as
/// it is. The CPU targets of vectorize and guvectorize run their loops this
/// way (one call per NumPy inner loop, split over the cores for 'parallel').

#include <cuforge/frontend/host_arrays.hpp>
#include <cuforge/jit/compiled_kernel.hpp>
#include <cuforge/runtime/export.hpp>
#include <cuforge/runtime/host_parallel.hpp>

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
/// Arrays the code allocates (numpy.empty... in host code) are freed when
/// the call returns or throws.
CUFORGE_API void call_on_host(compiled_kernel& k, std::span<const std::uint64_t> slots);

/// call_on_host, handing over the arrays the code allocated instead of
/// freeing them: what the host jit does when its function returns an array.
CUFORGE_API frontend::host_allocations call_on_host_keeping(compiled_kernel& k, std::span<const std::uint64_t> slots);

/// The host thread pool, runtime/host_parallel.hpp's (the cuda backend's
/// staged copies share it).
using cuforge::host_parallel_for;
using cuforge::host_workers;

}  // namespace cuforge::jit
