#include "extent.hpp"

#include <cuforge/runtime/backend.hpp>
#include <cuforge/runtime/error.hpp>
#include <cuforge/runtime/memory_ops.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace cuforge::interop::detail {

std::string hex(std::uintptr_t p) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%zx", static_cast<std::size_t>(p));
  return buf;
}

std::pair<std::int64_t, std::int64_t> element_span(const char* who, const extents& shape, const extents& strides,
                                                   std::size_t itemsize) {
  std::int64_t n = element_count(shape);
  std::int64_t lo = 0, hi = n ? static_cast<std::int64_t>(itemsize) : 0;
  for (std::size_t i = 0; n && i < shape.size(); ++i) {
    std::int64_t reach = 0;
    if (__builtin_mul_overflow(shape[i] - 1, strides[i], &reach) ||
        __builtin_add_overflow(reach < 0 ? lo : hi, reach, reach < 0 ? &lo : &hi))
      throw logic_error(std::string(who) + ": the array's extent overflows 64 bits");
  }
  return {lo, hi};
}

void check_mapped(const char* who, std::uintptr_t data, std::int64_t lo, std::int64_t hi) {
  static const std::uintptr_t page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  std::uintptr_t first = data + static_cast<std::uintptr_t>(lo), last = data + static_cast<std::uintptr_t>(hi);
  std::uintptr_t start = first & ~(page - 1);
  // msync reports ENOMEM when part of the range is not mapped (any other
  // failure is a question it cannot answer: let it through); MS_ASYNC
  // schedules nothing for anonymous memory, so it costs one system call.
  bool wraps = last < first;
  if (wraps || (msync(reinterpret_cast<void*>(start), last - start, MS_ASYNC) != 0 && errno == ENOMEM)) {
    throw logic_error(std::string(who) + ": the array's elements (bytes [" + std::to_string(lo) + ", " +
                      std::to_string(hi) + ") around " + hex(data) +
                      ") are not in memory this process has mapped: a stale or made-up data pointer?");
  }
}

int check_inside_allocation(const char* who, std::uintptr_t data, std::int64_t lo, std::int64_t hi) {
  if (hi <= lo) return -1;
  return check_inside_allocation(who, data, lo, hi, mem::allocation_of(reinterpret_cast<const void*>(data)));
}

int check_inside_allocation(const char* who, std::uintptr_t data, std::int64_t lo, std::int64_t hi,
                            const std::optional<mem::allocation_info>& range, bool host) {
  if (hi <= lo) return -1;
  if (!range) {
    // Memory neither the runtime nor the driver knows. Host memory (all of
    // it on the cpu backend, where kernels read it directly) must at least
    // be mapped, or the launch or its copy would crash the process. Device
    // memory the driver has no record of is no allocation at all: a kernel
    // reading it faults and takes the context down with it.
    if (active_traits().device_memory_is_host || host) {
      check_mapped(who, data, lo, hi);
    } else {
      throw logic_error(std::string(who) + ": the array's elements (bytes [" + std::to_string(lo) + ", " +
                        std::to_string(hi) + ") around " + hex(data) +
                        ") are not in memory this process has mapped on the device (the driver knows no "
                        "allocation there): a stale or made-up data pointer?");
    }
    return -1;
  }
  auto start = reinterpret_cast<std::uintptr_t>(range->start), end = start + range->bytes;
  auto first = static_cast<std::int64_t>(data - start) + lo;
  if (first < 0 || data + static_cast<std::uintptr_t>(hi) > end)
    throw logic_error(std::string(who) + ": the array's elements reach outside its allocation (bytes [" +
                      std::to_string(lo) + ", " + std::to_string(hi) + ") around " + hex(data) +
                      ", in an allocation of " + std::to_string(range->bytes) + " bytes at " + hex(start) + ")");
  return range->device;
}

}  // namespace cuforge::interop::detail
