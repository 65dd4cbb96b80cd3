#pragma once

/// @file
/// The cpu backend's memory: every kind is host memory, but the backend
/// still knows which pointer is which (kind_of, pinned-vs-pageable copy
/// rules, mapped pointers, double registration) through a range registry.

#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/memory_ops.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <shared_mutex>

namespace cuforge::detail::cpu {

struct region {
  std::size_t bytes = 0;
  memory_kind kind = memory_kind::device;
  int device = 0;
  bool mapped = false;   ///< device-visible (mapped or registered with the flag)
  bool owned = false;    ///< allocated here (freed here), not registered
  bool mmapped = false;
  std::size_t mapping_bytes = 0;  ///< mmapped: the whole mapping's size (slack included)
  /// Device memory: the whole pages from the start that are this block's
  /// alone (what sharing it with another process maps); 0 otherwise.
  std::size_t page_span = 0;
  int share_fd = -1;              ///< exported: the shared-memory file now behind the pages
  std::uint64_t share_token = 0;  ///< exported: the file's name, checked by the importer
  bool imported = false;          ///< mapped from another process's export (ipc_open)
};

class host_memory {
 public:
  /// @throws out_of_memory with the size and kind when the request exceeds
  ///         the machine's memory or the system refuses it.
  void* allocate(memory_kind kind, std::size_t bytes, int device, bool mapped);
  /// Frees memory from allocate(); false if `p` is not such a block.
  bool release(void* p) noexcept;
  void add_registration(void* p, std::size_t bytes, bool mapped);
  bool remove_registration(void* p) noexcept;
  /// The region containing p, if any.
  std::optional<std::pair<std::uintptr_t, region>> find(const void* p) const;
  std::size_t total_physical() const noexcept { return total_; }
  /// Bytes of freed mappings kept for reuse.
  std::size_t idle_bytes() const;
  /// Unmaps kept mappings until at most `keep` bytes are left.
  void trim(std::size_t keep) noexcept;

  /// @brief A handle another process can map the device block at `start`
  /// with: on the first export, the block's pages are moved into a
  /// shared-memory file (contents kept, address unchanged), which lives
  /// until the block is freed. The caller makes sure nothing writes the
  /// block meanwhile. @throws cuda_error when the block cannot be shared.
  std::string share(std::uintptr_t start);
  /// @brief Maps the block a handle from another process names, as device
  /// memory of `device`. @throws cuda_error naming why it cannot.
  void* open_shared(const std::string& handle, int device);
  /// @brief Unmaps what open_shared returned. @throws cuda_error if `p` is not such a mapping.
  void close_shared(void* p);

  host_memory();
  ~host_memory();
  host_memory(const host_memory&) = delete;
  host_memory& operator=(const host_memory&) = delete;

 private:
  void* map(std::size_t mapping_bytes);

  mutable std::shared_mutex m_;
  std::map<std::uintptr_t, region> regions_;
  /// Freed mappings by size, newest last in each size, kept for the next
  /// allocation of that size: its pages are already faulted in.
  std::multimap<std::size_t, void*> idle_;
  std::size_t idle_bytes_ = 0;
  std::size_t idle_limit_ = 0;
  std::size_t total_ = 0;
};

/// MemTotal and MemAvailable from /proc/meminfo (sysconf as a fallback).
memory_info read_meminfo();

}  // namespace cuforge::detail::cpu
