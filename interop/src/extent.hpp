#pragma once
// Shared by both imports: where an array's elements lie, and whether they
// stay inside the allocation the runtime knows for its pointer.
#include <cuforge/devicearray/device_ndarray.hpp>
#include <cuforge/runtime/memory_ops.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace cuforge::interop::detail {

/// Bytes [lo, hi) the elements touch around the data pointer; throws
/// logic_error (prefixed with `who`) when the arithmetic overflows.
std::pair<std::int64_t, std::int64_t> element_span(const char* who, const extents& shape, const extents& strides,
                                                   std::size_t itemsize);

/// Throws logic_error when the runtime knows the allocation `data` points
/// into and [data + lo, data + hi) runs outside it. Returns the device that
/// allocation belongs to (-1: unknown, or host memory every device reaches).
/// Memory it does not know must at least be mapped in this process
/// (check_mapped) on the cpu backend, or when the producer says it is host
/// memory (`host`); on a GPU, memory said to be the device's that the
/// driver knows nothing of is refused (a launch over it would fault and
/// take the context down).
int check_inside_allocation(const char* who, std::uintptr_t data, std::int64_t lo, std::int64_t hi);
/// The same with the allocation already looked up (mem::allocation_of(data)).
int check_inside_allocation(const char* who, std::uintptr_t data, std::int64_t lo, std::int64_t hi,
                            const std::optional<mem::allocation_info>& range, bool host = false);

/// Throws logic_error when some byte of [data + lo, data + hi) is not in
/// memory this process has mapped.
void check_mapped(const char* who, std::uintptr_t data, std::int64_t lo, std::int64_t hi);

std::string hex(std::uintptr_t p);

}  // namespace cuforge::interop::detail
