#pragma once

/// @file
/// Arrays host code makes (numpy.empty, zeros, ones, full and their _like
/// forms in cuforge.jit / njit functions, and vectorize's CPU loops): each
/// call of host code (jit::call_on_host) opens a host_allocation_scope on its
/// thread, the code's allocations are recorded in it, and when the call ends
/// they are freed, unless the caller takes them (host_allocation_scope::take)
/// because the function returns an array that lives in them. Temporaries
/// therefore live until the call returns, not until their last use
/// (docs/high_level.md).

#include <cuforge/runtime/export.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

/// The allocation host code calls: `bytes` bytes aligned to 64, zeroed when
/// `zero` is nonzero, recorded in the thread's innermost scope; null when
/// the memory cannot be had (the code raises MemoryError). Host code runs
/// inside a scope (jit::call_on_host opens one for each call).
extern "C" CUFORGE_API void* cuforge_host_alloc(std::int64_t bytes, std::int32_t zero);

namespace cuforge::frontend {

/// The bytes host code allocated that are not freed yet, over all threads
/// (temporaries of calls under way and the memory of arrays returned to
/// Python that are still alive): what the tests watch for leaks.
CUFORGE_API std::int64_t host_bytes_outstanding() noexcept;

/// Blocks host code allocated, owned: freed when this is destroyed.
class CUFORGE_API host_allocations {
 public:
  struct block {
    void* data = nullptr;
    std::size_t bytes = 0;
  };
  host_allocations() = default;
  explicit host_allocations(std::vector<block> blocks) : blocks_(std::move(blocks)) {}
  host_allocations(host_allocations&& o) noexcept : blocks_(std::move(o.blocks_)) { o.blocks_.clear(); }
  host_allocations& operator=(host_allocations&& o) noexcept;
  host_allocations(const host_allocations&) = delete;
  host_allocations& operator=(const host_allocations&) = delete;
  ~host_allocations();

  /// Whether [p, p + bytes) lies inside one of the blocks.
  bool holds(std::uintptr_t p, std::size_t bytes) const noexcept;
  std::size_t count() const noexcept { return blocks_.size(); }
  std::size_t total_bytes() const noexcept;

 private:
  std::vector<block> blocks_;
};

/// The allocations of one host call on this thread (scopes nest: an inner
/// one sees only its own).
class CUFORGE_API host_allocation_scope {
 public:
  host_allocation_scope();
  ~host_allocation_scope();
  host_allocation_scope(const host_allocation_scope&) = delete;
  host_allocation_scope& operator=(const host_allocation_scope&) = delete;
  /// What was allocated since the scope opened, handed over (the scope then frees nothing).
  host_allocations take();

 private:
  std::size_t mark_;
};

}  // namespace cuforge::frontend
