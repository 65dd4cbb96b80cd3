#include "cpu/host_memory.hpp"

#include "status.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>

namespace cuforge::detail::cpu {
namespace {
// Device allocations are 256-byte aligned, as cuMemAlloc's are.
constexpr std::size_t alignment = 256;
// Big blocks go straight to mmap so that freeing returns them to the system.
constexpr std::size_t mmap_threshold = std::size_t{1} << 20;
// Past the end of every allocation, memory of ours that no array owns: a
// kernel reading just past an array (numba's laplace example reads one
// element past its last row) gets garbage, as on a GPU, whose allocations
// are whole pages, instead of faulting at the unmapped page an mmap'd block
// ends on. Smaller blocks come from the heap, where a neighbour or the
// heap's own top follows. The region's size stays the one asked for.
constexpr std::size_t slack_bytes = 4096;
constexpr std::size_t heap_slack_bytes = alignment;
}  // namespace

memory_info read_meminfo() {
  memory_info info;
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::size_t kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit) {
    if (key == "MemTotal:") info.total = kb * 1024;
    if (key == "MemAvailable:") info.free = kb * 1024;
  }
  if (info.total == 0) {
    auto pages = static_cast<std::size_t>(sysconf(_SC_PHYS_PAGES));
    auto avail = static_cast<std::size_t>(sysconf(_SC_AVPHYS_PAGES));
    auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    info.total = pages * page;
    info.free = avail * page;
  }
  return info;
}

host_memory::host_memory() : total_(read_meminfo().total) {}

void* host_memory::allocate(memory_kind kind, std::size_t bytes, int device, bool mapped) {
  // The cpu device's memory is the machine's: a request larger than all of
  // it can never succeed, and the system's overcommit would otherwise grant
  // it and fail later, on first touch, with a crash.
  if (bytes > total_)
    throw out_of_memory(bytes, std::string(to_string(kind)) + " memory on cpu device " + std::to_string(device),
                        "the machine has " + std::to_string(total_) + " bytes");
  std::size_t rounded = bytes == 0 ? alignment : (bytes + alignment - 1) / alignment * alignment;
  void* p = nullptr;
  bool mmapped = rounded >= mmap_threshold;
  if (mmapped) {
    p = mmap(nullptr, rounded + slack_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) p = nullptr;
  } else {
    p = std::aligned_alloc(alignment, rounded + heap_slack_bytes);
  }
  if (!p)
    throw out_of_memory(bytes, std::string(to_string(kind)) + " memory on cpu device " + std::to_string(device),
                        std::strerror(errno));
  std::unique_lock lock(m_);
  regions_[reinterpret_cast<std::uintptr_t>(p)] = region{rounded, kind, device, mapped, true, mmapped};
  return p;
}

bool host_memory::release(void* p) noexcept {
  region r;
  {
    std::unique_lock lock(m_);
    auto it = regions_.find(reinterpret_cast<std::uintptr_t>(p));
    if (it == regions_.end() || !it->second.owned) return false;
    r = it->second;
    regions_.erase(it);
  }
  if (r.mmapped)
    munmap(p, r.bytes + slack_bytes);
  else
    std::free(p);
  return true;
}

void host_memory::add_registration(void* p, std::size_t bytes, bool mapped) {
  auto start = reinterpret_cast<std::uintptr_t>(p);
  std::unique_lock lock(m_);
  auto next = regions_.lower_bound(start);
  bool overlaps = next != regions_.end() && next->first < start + bytes;
  if (!overlaps && next != regions_.begin()) {
    auto prev = std::prev(next);
    overlaps = prev->first + prev->second.bytes > start;
  }
  if (overlaps)
    raise(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
          "the range overlaps memory that is already registered or allocated by cuforge",
          "cuMemHostRegister (cpu backend)");
  regions_[start] = region{bytes, memory_kind::registered, 0, mapped, false, false};
}

bool host_memory::remove_registration(void* p) noexcept {
  std::unique_lock lock(m_);
  auto it = regions_.find(reinterpret_cast<std::uintptr_t>(p));
  if (it == regions_.end() || it->second.owned) return false;
  regions_.erase(it);
  return true;
}

std::optional<std::pair<std::uintptr_t, region>> host_memory::find(const void* p) const {
  auto addr = reinterpret_cast<std::uintptr_t>(p);
  std::shared_lock lock(m_);
  auto it = regions_.upper_bound(addr);
  if (it == regions_.begin()) return std::nullopt;
  --it;
  if (addr >= it->first + it->second.bytes) return std::nullopt;
  return *it;
}

}  // namespace cuforge::detail::cpu
