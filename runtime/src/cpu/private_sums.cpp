#include "cpu/private_sums.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace cuforge::detail::cpu_exec {

namespace {

__extension__ typedef __int128 wide;  // extents times strides, summed, cannot overflow it

/// The bytes an array parameter covers: [lo, hi) relative to its data pointer, or empty.
struct extent_bytes {
  bool empty = true;
  wide lo = 0, hi = 0;
};

extent_bytes bytes_of(const cpu::array_param& a, void** params) {
  extent_bytes r;
  wide lo = 0, hi = 0;
  for (unsigned d = 0; d < a.ndim; ++d) {
    const auto extent = *static_cast<const std::int64_t*>(params[a.slot + 1 + d]);
    const auto stride = *static_cast<const std::int64_t*>(params[a.slot + 1 + a.ndim + d]);
    if (extent <= 0) return r;
    const wide far = static_cast<wide>(extent - 1) * stride;
    (far < 0 ? lo : hi) += far;
  }
  r.empty = false;
  r.lo = lo;
  r.hi = hi + a.itemsize;
  return r;
}

char* data_of(const cpu::array_param& a, void** params) { return *static_cast<char**>(params[a.slot]); }

bool strides_fit(const cpu::array_param& a, void** params) {
  for (unsigned d = 0; d < a.ndim; ++d)
    if (*static_cast<const std::int64_t*>(params[a.slot + 1 + a.ndim + d]) % a.itemsize != 0) return false;
  return true;
}

template <class T>
void add_copy(char* array, const char* copy, std::size_t bytes) noexcept {
  using bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  for (std::size_t at = 0; at < bytes; at += sizeof(T)) {
    bits b;
    std::memcpy(&b, copy + at, sizeof b);
    if (b == 0) continue;  // untouched (or +0.0, which adds nothing): leave the array's line alone
    T v;
    std::memcpy(&v, copy + at, sizeof v);
    std::atomic_ref<T>(*reinterpret_cast<T*>(array + at)).fetch_add(v, std::memory_order_relaxed);
  }
}

}  // namespace

bool private_sums_enabled() noexcept {
  static const bool on = [] {
    const char* v = std::getenv("CUFORGE_CPU_PRIVATE_SUMS");
    return v == nullptr || std::strcmp(v, "0") != 0;
  }();
  return on;
}

std::vector<private_sum> plan_private_sums(const std::vector<cpu::array_param>& arrays, void** params,
                                           std::size_t param_count, unsigned long long threads) {
  std::vector<private_sum> plan;
  if (params == nullptr || !private_sums_enabled()) return plan;
  for (const auto& a : arrays)  // the compiler's slots must lie inside the parameters
    if (a.slot + 1 + 2 * std::size_t{a.ndim} > param_count) return plan;
  std::size_t used = 0;
  unsigned long long elements = 0;
  for (const auto& a : arrays) {
    if (a.how == cpu::array_param::use::other || (a.itemsize != 4 && a.itemsize != 8) || a.arg >= 64) continue;
    const extent_bytes e = bytes_of(a, params);
    if (e.empty || e.hi - e.lo > static_cast<wide>(private_sum_budget)) continue;
    char* data = data_of(a, params);
    char* lo = data + static_cast<std::ptrdiff_t>(e.lo);
    if (reinterpret_cast<std::uintptr_t>(data) % a.itemsize != 0 || !strides_fit(a, params)) continue;
    bool overlaps = false;
    for (const auto& b : arrays) {
      if (b.how != cpu::array_param::use::other) continue;
      const extent_bytes f = bytes_of(b, params);
      if (f.empty) continue;
      const auto other = reinterpret_cast<std::intptr_t>(data_of(b, params));
      const wide b_lo = other + f.lo, b_hi = other + f.hi;
      const wide a_lo = reinterpret_cast<std::intptr_t>(data) + e.lo, a_hi = reinterpret_cast<std::intptr_t>(data) + e.hi;
      if (a_lo < b_hi && b_lo < a_hi) overlaps = true;
    }
    if (overlaps) continue;
    private_sum s;
    s.slot = a.slot;
    s.arg = a.arg;
    s.itemsize = static_cast<std::uint8_t>(a.itemsize);
    s.is_float = a.how == cpu::array_param::use::float_sum;
    s.lo = lo;
    s.bytes = static_cast<std::size_t>(e.hi - e.lo);
    s.data_offset = static_cast<std::size_t>(-e.lo);
    s.copy_offset = used;
    const std::size_t next = (used + s.bytes + 63) & ~std::size_t{63};
    if (next > private_sum_budget) continue;
    used = next;
    elements += s.bytes / s.itemsize;
    plan.push_back(s);
  }
  // Each worker zeroes and adds its copies once: worth it when the launch has a thread for
  // every few elements (a thread's add saves several times what an element's pass costs).
  if (threads < elements / 4) plan.clear();
  return plan;
}

void** private_copies::make(const std::vector<private_sum>& plan, void** params, std::size_t param_count) {
  const std::size_t need = plan.back().copy_offset + plan.back().bytes;
  if (need > capacity_) {
    void* fresh = ::operator new(need, alignment);
    ::operator delete(buffer_, alignment);
    buffer_ = static_cast<char*>(fresh);
    capacity_ = need;
  }
  params_.assign(params, params + param_count);
  data_.resize(plan.size());
  mask_ = 0;
  for (std::size_t k = 0; k < plan.size(); ++k) {
    const private_sum& s = plan[k];
    std::memset(buffer_ + s.copy_offset, 0, s.bytes);
    data_[k] = buffer_ + s.copy_offset + s.data_offset;
    params_[s.slot] = &data_[k];
    mask_ |= std::uint64_t{1} << s.arg;
  }
  return params_.data();
}

void private_copies::add_into_arrays(const std::vector<private_sum>& plan) const noexcept {
  for (const private_sum& s : plan) {
    const char* copy = buffer_ + s.copy_offset;
    if (s.is_float) {
      if (s.itemsize == 4) add_copy<float>(s.lo, copy, s.bytes);
      else add_copy<double>(s.lo, copy, s.bytes);
    } else {
      if (s.itemsize == 4) add_copy<std::uint32_t>(s.lo, copy, s.bytes);
      else add_copy<std::uint64_t>(s.lo, copy, s.bytes);
    }
  }
}

}  // namespace cuforge::detail::cpu_exec
