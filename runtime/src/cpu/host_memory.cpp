#include "cpu/host_memory.hpp"

#include "status.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <atomic>
#include <cinttypes>
#include <mutex>
#include <random>
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

// Device blocks from the heap start on a page and own whole pages, so that
// they can be moved into a shared-memory file when exported (share()).
std::size_t page_bytes() {
  static const std::size_t page = [] {
    long v = sysconf(_SC_PAGESIZE);
    return v > 0 ? static_cast<std::size_t>(v) : std::size_t{4096};
  }();
  return page;
}

std::size_t round_to_pages(std::size_t bytes) {
  const std::size_t page = page_bytes();
  return (bytes + page - 1) / page * page;
}

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
        regions_[reinterpret_cast<std::uintptr_t>(p)] =
            region{rounded, kind, device, mapped, true, true, mapping, kind == memory_kind::device ? mapping : 0};
        return p;
      }
    }
    p = map(mapping);
    if (p == nullptr && idle_bytes() != 0) {  // the kept mappings may be what is missing
      trim(0);
      p = map(mapping);
    }
  } else if (kind == memory_kind::device) {
    p = std::aligned_alloc(page_bytes(), round_to_pages(rounded + heap_slack_bytes));
  } else {
    p = std::aligned_alloc(alignment, rounded + heap_slack_bytes);
  }
  if (!p)
    throw out_of_memory(bytes, std::string(to_string(kind)) + " memory on cpu device " + std::to_string(device),
                        std::strerror(errno));
  std::size_t span = 0;
  if (kind == memory_kind::device) span = mmapped ? mapping : round_to_pages(rounded + heap_slack_bytes);
  std::unique_lock lock(m_);
  regions_[reinterpret_cast<std::uintptr_t>(p)] = region{rounded, kind, device, mapped, true, mmapped, mapping, span};
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
    if (r.mmapped && r.share_fd < 0 && idle_bytes_ + r.mapping_bytes <= idle_limit_) {
      idle_.emplace(r.mapping_bytes, p);
      idle_bytes_ += r.mapping_bytes;
      return true;
    }
  }
  if (r.share_fd >= 0) {
    // Exported: importers keep their mapping of the file; closing ours
    // makes the handle unopenable from now on.
    ::close(r.share_fd);
    if (!r.mmapped) {
      // The heap gets private pages back before it hands the block out again.
      if (mmap(p, r.page_span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
        std::fprintf(stderr, "cuforge: could not unshare freed device memory at %p (%s); leaking it\n", p,
                     std::strerror(errno));
        return true;
      }
    }
  }
  if (r.mmapped)
    munmap(p, r.mapping_bytes);
  else
    std::free(p);
  return true;
}

namespace {
constexpr const char* cpu_handle_tag = "cuforge-cpu-ipc/1";
constexpr const char* cuda_handle_tag = "cuforge-cuda-ipc/";

std::string memfd_name(std::uint64_t token) {
  char name[64];
  std::snprintf(name, sizeof name, "cuforge-ipc-%016" PRIx64, token);
  return name;
}

std::uint64_t fresh_token() {
  static std::atomic<std::uint64_t> counter{0};
  static const std::uint64_t seed = [] {
    std::random_device rd;
    return (static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^ static_cast<std::uint64_t>(getpid());
  }();
  return seed ^ (0x9e3779b97f4a7c15ull * ++counter);
}

[[noreturn]] void refuse_handle(const std::string& why) {
  raise(CUDA_ERROR_INVALID_HANDLE, why, "ipc_open (cpu backend)");
}
}  // namespace

std::string host_memory::share(std::uintptr_t start) {
  std::unique_lock lock(m_);
  auto it = regions_.find(start);
  if (it == regions_.end() || !it->second.owned || it->second.kind != memory_kind::device || it->second.page_span == 0)
    raise(CUDA_ERROR_INVALID_VALUE, "only device memory allocated by cuforge can be shared with another process",
          "ipc_export (cpu backend)");
  region& r = it->second;
  if (r.share_fd < 0) {
    const std::uint64_t token = fresh_token();
    int fd = memfd_create(memfd_name(token).c_str(), MFD_CLOEXEC);
    if (fd < 0) raise(CUDA_ERROR_OPERATING_SYSTEM, std::string("memfd_create: ") + std::strerror(errno), "ipc_export");
    void* staging = MAP_FAILED;
    if (ftruncate(fd, static_cast<off_t>(r.page_span)) == 0)
      staging = mmap(nullptr, r.page_span, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (staging == MAP_FAILED) {
      int err = errno;
      ::close(fd);
      raise(CUDA_ERROR_OPERATING_SYSTEM, std::string("sharing device memory: ") + std::strerror(err), "ipc_export");
    }
    // The file takes the block's contents, then its place at the same address.
    std::memcpy(staging, reinterpret_cast<void*>(start), r.page_span);
    void* at = mmap(reinterpret_cast<void*>(start), r.page_span, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    int err = errno;
    munmap(staging, r.page_span);
    if (at == MAP_FAILED) {
      ::close(fd);
      raise(CUDA_ERROR_OPERATING_SYSTEM, std::string("sharing device memory: ") + std::strerror(err), "ipc_export");
    }
    r.share_fd = fd;
    r.share_token = token;
  }
  char handle[160];
  std::snprintf(handle, sizeof handle, "%s pid=%d fd=%d token=%016" PRIx64 " bytes=%zu span=%zu", cpu_handle_tag,
                static_cast<int>(getpid()), r.share_fd, r.share_token, r.bytes, r.page_span);
  return handle;
}

void* host_memory::open_shared(const std::string& handle, int device) {
  if (handle.rfind(cuda_handle_tag, 0) == 0)
    refuse_handle("the handle was made on a GPU (the cuda backend); this process runs on the cpu backend");
  int pid = 0, fd = -1, used = 0;
  std::uint64_t token = 0;
  std::size_t bytes = 0, span = 0;
  const std::string format = std::string(cpu_handle_tag) + " pid=%d fd=%d token=%" SCNx64 " bytes=%zu span=%zu%n";
  if (std::sscanf(handle.c_str(), format.c_str(), &pid, &fd, &token, &bytes, &span, &used) != 5 ||
      static_cast<std::size_t>(used) != handle.size() || pid <= 0 || fd < 0 || bytes == 0 || span < bytes)
    refuse_handle("this is not an IPC handle of cuforge's cpu backend (corrupted, or made by something else)");
  if (pid == getpid())
    refuse_handle("the handle was made in this process: use the array it came from (a handle is opened in another "
                  "process)");
  const std::string path = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
  int local = open(path.c_str(), O_RDWR | O_CLOEXEC);
  auto gone = [&] {
    refuse_handle("the memory this IPC handle names is gone: it was freed, or process " + std::to_string(pid) +
                  " ended");
  };
  if (local < 0) {
    if (errno == EACCES || errno == EPERM)
      refuse_handle("process " + std::to_string(pid) + " does not let this one open its memory (" +
                    std::strerror(errno) + ")");
    gone();
  }
  // The descriptor number may have been reused since: the file's name says
  // whether it is still the export the handle names.
  char link[256] = {};
  const std::string self = "/proc/self/fd/" + std::to_string(local);
  ssize_t n = readlink(self.c_str(), link, sizeof link - 1);
  struct stat st {};
  const std::string expected = "/memfd:" + memfd_name(token) + " (deleted)";
  if (n <= 0 || std::string(link, static_cast<std::size_t>(n)) != expected || fstat(local, &st) != 0 ||
      static_cast<std::size_t>(st.st_size) < span) {
    ::close(local);
    gone();
  }
  void* p = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_SHARED, local, 0);
  int err = errno;
  ::close(local);
  if (p == MAP_FAILED) raise(CUDA_ERROR_OPERATING_SYSTEM, std::string("mapping shared memory: ") + std::strerror(err),
                             "ipc_open");
  std::unique_lock lock(m_);
  region r{bytes, memory_kind::device, device, false, false, false, span, span};
  r.imported = true;
  regions_[reinterpret_cast<std::uintptr_t>(p)] = r;
  return p;
}

void host_memory::close_shared(void* p) {
  std::size_t span = 0;
  {
    std::unique_lock lock(m_);
    auto it = regions_.find(reinterpret_cast<std::uintptr_t>(p));
    if (it == regions_.end() || !it->second.imported)
      raise(CUDA_ERROR_INVALID_VALUE, "the address is not memory opened from an IPC handle", "ipc_close (cpu backend)");
    span = it->second.mapping_bytes;
    regions_.erase(it);
  }
  munmap(p, span);
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
