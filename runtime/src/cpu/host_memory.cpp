#include "cpu/host_memory.hpp"

#include "status.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

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
// Mappings of 2 MiB and more start on a 2 MiB boundary and ask for
// transparent huge pages (as NumPy's large arrays do): a fresh array is then
// faulted in 2 MiB at a time instead of 4 KiB, four times faster to fill.
// Their sizes are whole huge pages; smaller mappings whole 64 KiB, so that
// sizes repeat and freed mappings can be reused.
constexpr std::size_t huge_page = std::size_t{2} << 20;
constexpr std::size_t small_granule = std::size_t{64} << 10;

std::size_t mapping_size(std::size_t rounded) {
  const std::size_t want = rounded + slack_bytes;
  const std::size_t granule = rounded >= huge_page ? huge_page : small_granule;
  return (want + granule - 1) / granule * granule;
}
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

// Freed mappings are kept up to an eighth of the machine's memory (at most 4
// GiB): a program that frees and allocates arrays of the same sizes in a
// loop then touches no fresh page, and memory it no longer uses goes back to
// the system beyond that (or on cuMemPoolTrimTo, trim()).
host_memory::host_memory() : total_(read_meminfo().total) {
  idle_limit_ = std::min(total_ / 8, std::size_t{4} << 30);
}

host_memory::~host_memory() { trim(0); }

void* host_memory::map(std::size_t bytes) {
  if (bytes < huge_page) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? nullptr : p;
  }
  // Over-map by a huge page, then cut the head and the tail to a 2 MiB boundary.
  void* raw = mmap(nullptr, bytes + huge_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (start + huge_page - 1) & ~(huge_page - 1);
  if (aligned > start) munmap(raw, aligned - start);
  const std::uintptr_t end = start + bytes + huge_page;
  if (end > aligned + bytes) munmap(reinterpret_cast<void*>(aligned + bytes), end - (aligned + bytes));
  void* p = reinterpret_cast<void*>(aligned);
#ifdef MADV_HUGEPAGE
  madvise(p, bytes, MADV_HUGEPAGE);  // advice: where THP is off, 4 KiB pages as before
#endif
  return p;
}

std::size_t host_memory::idle_bytes() const {
  std::shared_lock lock(m_);
  return idle_bytes_;
}

void host_memory::trim(std::size_t keep) noexcept {
  std::vector<std::pair<std::size_t, void*>> drop;
  {
    std::unique_lock lock(m_);
    // The biggest first: the fewest unmaps to get under `keep`.
    while (idle_bytes_ > keep && !idle_.empty()) {
      auto it = std::prev(idle_.end());
      drop.emplace_back(it->first, it->second);
      idle_bytes_ -= it->first;
      idle_.erase(it);
    }
  }
  for (auto& [bytes, p] : drop) munmap(p, bytes);
}

void* host_memory::allocate(memory_kind kind, std::size_t bytes, int device, bool mapped) {
  // The cpu device's memory is the machine's: a request larger than all of
  // it can never succeed, and the system's overcommit would otherwise grant
  // it and fail later, on first touch, with a crash.
  if (bytes > total_)
    throw out_of_memory(bytes, std::string(to_string(kind)) + " memory on cpu device " + std::to_string(device),
                        "the machine has " + std::to_string(total_) + " bytes");
  std::size_t rounded = bytes == 0 ? alignment : (bytes + alignment - 1) / alignment * alignment;
  const bool mmapped = rounded >= mmap_threshold;
  const std::size_t mapping = mmapped ? mapping_size(rounded) : 0;
  void* p = nullptr;
  if (mmapped) {
    {
      std::unique_lock lock(m_);
      if (auto it = idle_.find(mapping); it != idle_.end()) {  // a freed mapping of this size
        p = it->second;
        idle_bytes_ -= mapping;
        idle_.erase(it);
        regions_[reinterpret_cast<std::uintptr_t>(p)] = region{rounded, kind, device, mapped, true, true, mapping};
        return p;
      }
    }
    p = map(mapping);
    if (p == nullptr && idle_bytes() != 0) {  // the kept mappings may be what is missing
      trim(0);
      p = map(mapping);
    }
  } else {
    p = std::aligned_alloc(alignment, rounded + heap_slack_bytes);
  }
  if (!p)
    throw out_of_memory(bytes, std::string(to_string(kind)) + " memory on cpu device " + std::to_string(device),
                        std::strerror(errno));
  std::unique_lock lock(m_);
  regions_[reinterpret_cast<std::uintptr_t>(p)] = region{rounded, kind, device, mapped, true, mmapped, mapping};
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
    if (r.mmapped && idle_bytes_ + r.mapping_bytes <= idle_limit_) {
      idle_.emplace(r.mapping_bytes, p);
      idle_bytes_ += r.mapping_bytes;
      return true;
    }
  }
  if (r.mmapped)
    munmap(p, r.mapping_bytes);
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
