// Arrays host code makes (host_arrays.hpp): a per-thread record of the
// blocks cuforge_host_alloc gave out, cut into scopes by the host calls.
#include <cuforge/frontend/host_arrays.hpp>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace {

using block = cuforge::frontend::host_allocations::block;

thread_local std::vector<block> live;  // this thread's blocks not yet freed or handed over, oldest first
std::atomic<std::int64_t> outstanding{0};  // bytes given out and not yet freed

void release(const block& b) noexcept {
  std::free(b.data);
  outstanding.fetch_sub(static_cast<std::int64_t>(b.bytes), std::memory_order_relaxed);
}

}  // namespace

extern "C" void* cuforge_host_alloc(std::int64_t bytes, std::int32_t zero) {
  if (bytes < 0) return nullptr;
  // aligned_alloc wants a multiple of the alignment; a zero-size array still gets a block of its own.
  const auto want = static_cast<std::uint64_t>(bytes);
  if (want > std::numeric_limits<std::uint64_t>::max() - 63) return nullptr;
  const std::size_t rounded = static_cast<std::size_t>(((want == 0 ? 1 : want) + 63) & ~std::uint64_t{63});
  void* p = std::aligned_alloc(64, rounded);
  if (p == nullptr) return nullptr;
  if (zero != 0) std::memset(p, 0, rounded);
  try {
    live.push_back({p, static_cast<std::size_t>(want)});
  } catch (...) {
    std::free(p);
    return nullptr;
  }
  outstanding.fetch_add(static_cast<std::int64_t>(want), std::memory_order_relaxed);
  return p;
}

namespace cuforge::frontend {

std::int64_t host_bytes_outstanding() noexcept { return outstanding.load(std::memory_order_relaxed); }

host_allocations& host_allocations::operator=(host_allocations&& o) noexcept {
  if (this != &o) {
    for (const block& b : blocks_) release(b);
    blocks_ = std::move(o.blocks_);
    o.blocks_.clear();
  }
  return *this;
}

host_allocations::~host_allocations() {
  for (const block& b : blocks_) release(b);
}

bool host_allocations::holds(std::uintptr_t p, std::size_t bytes) const noexcept {
  for (const block& b : blocks_) {
    const auto start = reinterpret_cast<std::uintptr_t>(b.data);
    if (p >= start && p - start <= b.bytes && bytes <= b.bytes - (p - start)) return true;
  }
  return false;
}

std::size_t host_allocations::total_bytes() const noexcept {
  std::size_t n = 0;
  for (const block& b : blocks_) n += b.bytes;
  return n;
}

host_allocation_scope::host_allocation_scope() : mark_(live.size()) {}

host_allocation_scope::~host_allocation_scope() {
  const std::size_t from = mark_ <= live.size() ? mark_ : live.size();
  for (std::size_t i = from; i < live.size(); ++i) release(live[i]);
  live.resize(from);
}

host_allocations host_allocation_scope::take() {
  const std::size_t from = mark_ <= live.size() ? mark_ : live.size();
  std::vector<block> mine(live.begin() + static_cast<std::ptrdiff_t>(from), live.end());
  live.resize(from);
  return host_allocations(std::move(mine));
}

}  // namespace cuforge::frontend
