// Copies between host and device arrays and between device arrays, in
// stream order, for any layout. Contiguous copies are one driver copy;
// everything else is gathered or scattered by the strided copy kernel on
// the device (one launch path for both backends) or by a loop on the host,
// staging through contiguous buffers where a side is not contiguous.
#include "kernels.hpp"

#include "../kernels/strided_copy_args.h"

#include <cuforge/devicearray/device_ndarray.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/error.hpp>
#include <cuforge/runtime/event.hpp>
#include <cuforge/runtime/launch.hpp>
#include <cuforge/runtime/memory_ops.hpp>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace cuforge {
namespace {

std::string str(const extents& e) {
  std::string s = "(";
  for (std::size_t i = 0; i < e.size(); ++i) s += (i ? ", " : "") + std::to_string(e[i]);
  return s + (e.size() == 1 ? ",)" : ")");
}

bool contiguous(const extents& shape, const extents& strides, std::size_t itemsize, char order) {
  std::int64_t expect = static_cast<std::int64_t>(itemsize);
  auto step = [&](std::size_t i) {
    if (shape[i] == 1) return true;
    if (strides[i] != expect) return false;
    expect *= shape[i];
    return true;
  };
  for (auto e : shape)
    if (e == 0) return true;
  if (order == 'C') {
    for (std::size_t i = shape.size(); i-- > 0;)
      if (!step(i)) return false;
  } else {
    for (std::size_t i = 0; i < shape.size(); ++i)
      if (!step(i)) return false;
  }
  return true;
}

/// Drops extent-1 axes and merges neighbours that are contiguous in both
/// layouts, so the kernel and the host loop do as few index steps as they can.
void collapse(extents& shape, extents& a, extents& b) {
  extents s2, a2, b2;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1) continue;
    if (!s2.empty() && a2.back() == a[i] * shape[i] && b2.back() == b[i] * shape[i]) {
      s2.back() *= shape[i];
      a2.back() = a[i];
      b2.back() = b[i];
      continue;
    }
    s2.push_back(shape[i]);
    a2.push_back(a[i]);
    b2.push_back(b[i]);
  }
  shape.swap(s2);
  a.swap(a2);
  b.swap(b2);
}

/// Synchronous host loop: element i (C order) of src to element i of dst.
void host_strided_copy(char* dst, extents dst_strides, const char* src, extents src_strides, extents shape,
                       std::size_t itemsize) {
  collapse(shape, dst_strides, src_strides);
  if (shape.empty()) {
    std::memcpy(dst, src, itemsize);
    return;
  }
  std::size_t nd = shape.size();
  std::vector<std::int64_t> idx(nd, 0);
  std::int64_t inner = shape[nd - 1], ds = dst_strides[nd - 1], ss = src_strides[nd - 1];
  bool rows = ds == static_cast<std::int64_t>(itemsize) && ss == static_cast<std::int64_t>(itemsize);
  for (;;) {
    std::int64_t doff = 0, soff = 0;
    for (std::size_t d = 0; d + 1 < nd; ++d) {
      doff += idx[d] * dst_strides[d];
      soff += idx[d] * src_strides[d];
    }
    if (rows) {
      std::memcpy(dst + doff, src + soff, static_cast<std::size_t>(inner) * itemsize);
    } else {
      for (std::int64_t i = 0; i < inner; ++i) std::memcpy(dst + doff + i * ds, src + soff + i * ss, itemsize);
    }
    std::size_t d = nd - 1;
    while (d-- > 0) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
    if (d == static_cast<std::size_t>(-1)) return;
  }
}

struct kernel_slot {
  std::uint64_t generation = 0;
  std::optional<kernel> k;
};

const kernel& strided_kernel(int dev) {
  static std::mutex m;
  static std::vector<kernel_slot>* slots = new std::vector<kernel_slot>;  // outlives static teardown
  std::lock_guard lock(m);
  if (slots->size() <= static_cast<std::size_t>(dev)) slots->resize(dev + 1);
  auto& slot = (*slots)[dev];
  if (!slot.k || slot.generation != context_generation()) {
    auto mod = module::load(detail::devicearray_kernels_image(), dev);
    slot.k = mod.get_kernel("cuforge_strided_copy");
    slot.generation = context_generation();
  }
  return *slot.k;
}

/// Stream-ordered device-side strided copy (src null: fill with `value`).
void launch_strided(char* dst, extents dst_strides, const char* src, extents src_strides, extents shape,
                    std::size_t itemsize, const void* value, stream_view s, int dev) {
  std::int64_t count = element_count(shape);
  if (count == 0) return;
  if (!src) src_strides.assign(shape.size(), 0);
  collapse(shape, dst_strides, src_strides);
  cuforge_strided_copy_args a{};
  a.dst = dst;
  a.src = src;
  a.count = count;
  a.ndim = static_cast<int>(shape.size());
  a.itemsize = static_cast<int>(itemsize);
  for (std::size_t d = 0; d < shape.size(); ++d) {
    a.shape[d] = shape[d];
    a.dst_strides[d] = dst_strides[d];
    a.src_strides[d] = src_strides[d];
  }
  if (value) std::memcpy(a.value, value, itemsize);
  constexpr unsigned block = 256;
  auto blocks = static_cast<unsigned>(std::min<std::int64_t>((count + block - 1) / block, 8192));
  launch(strided_kernel(dev), launch_config{.grid = blocks, .block = block, .stream = s}, a);
}

/// Makes `to` wait for the work queued so far on `from` (nothing to do when
/// they are the same stream).
void follow(stream_view from, stream_view to) {
  if (from.handle() == to.handle() && from.device() == to.device()) return;
  event e(event::options{.timing = false}, from.device());
  e.record(from);
  to.wait(e);
}

void check_same(const extents& shape, dtype type, const host_view& other, const char* what) {
  const extents& other_shape = other.shape;
  dtype other_type = other.type;
  // The strides are read for every axis of the shape: a short list would be
  // read past its end.
  if (other.strides.size() != other_shape.size())
    throw logic_error(std::string(what) + ": the host array's strides " + str(other.strides) +
                      " do not match its shape " + str(other_shape));
  if (type != other_type)
    throw type_error(std::string(what) + ": dtypes differ (" + type.name() + " and " + other_type.name() +
                     "); convert first");
  if (shape != other_shape)
    throw logic_error(std::string(what) + ": shapes differ (" + str(shape) + " and " + str(other_shape) + ")");
}

}  // namespace

void device_ndarray::copy_to_host(const host_view& dst, stream_view s, bool wait) const {
  if (alloc_) check_generation(alloc_->generation(), "device array");
  check_same(shape_, type_, dst, "copy to host");
  if (size_ == 0) return;
  CUFORGE_EXPECTS(dst.data != nullptr, "copy to host: the destination has no memory");
  auto n = static_cast<std::size_t>(nbytes());
  bool dst_c = contiguous(shape_, dst.strides, itemsize(), 'C');
  bool dst_f = contiguous(shape_, dst.strides, itemsize(), 'F');
  if ((dst_c && is_c_contiguous()) || (dst_f && is_f_contiguous())) {
    if (wait) mem::copy_host_sync(dst.data, data(), n, s);
    else mem::copy(dst.data, data(), n, s);
    return;
  }
  char order = dst_f && !dst_c ? 'F' : 'C';
  const device_ndarray* src = this;
  device_ndarray gathered;
  if (!(order == 'C' ? is_c_contiguous() : is_f_contiguous())) {
    gathered = empty(shape_, type_, order, s);
    gathered.copy_from(*this, s);
    src = &gathered;
  }
  if (order == 'C' ? dst_c : dst_f) {
    if (wait) mem::copy_host_sync(dst.data, src->data(), n, s);
    else mem::copy(dst.data, src->data(), n, s);
    return;
  }
  // Pageable staging: the copy has finished with it when mem::copy returns.
  std::vector<char> staging(n);
  mem::copy(staging.data(), src->data(), n, s);
  host_strided_copy(static_cast<char*>(dst.data), dst.strides, staging.data(),
                    contiguous_strides(shape_, itemsize(), order), shape_, itemsize());
  if (wait) s.synchronize();
}

void device_ndarray::copy_from_host(const host_view& src, stream_view s, bool wait) {
  if (alloc_) check_generation(alloc_->generation(), "device array");
  check_writable("copy from host");
  check_same(shape_, type_, src, "copy from host");
  if (size_ == 0) return;
  CUFORGE_EXPECTS(src.data != nullptr, "copy from host: the source has no memory");
  auto n = static_cast<std::size_t>(nbytes());
  bool src_c = contiguous(shape_, src.strides, itemsize(), 'C');
  bool src_f = contiguous(shape_, src.strides, itemsize(), 'F');
  if ((src_c && is_c_contiguous()) || (src_f && is_f_contiguous())) {
    if (wait) mem::copy_host_sync(data(), src.data, n, s);
    else mem::copy(data(), src.data, n, s);
    return;
  }
  char order = is_f_contiguous() && !is_c_contiguous() ? 'F' : 'C';
  const void* packed = src.data;
  std::vector<char> staging;
  if (!(order == 'C' ? src_c : src_f)) {
    staging.resize(n);
    host_strided_copy(staging.data(), contiguous_strides(shape_, itemsize(), order), static_cast<const char*>(src.data),
                      src.strides, shape_, itemsize());
    packed = staging.data();
  }
  if (order == 'C' ? is_c_contiguous() : is_f_contiguous()) {
    if (wait) mem::copy_host_sync(data(), packed, n, s);
    else mem::copy(data(), packed, n, s);
    return;
  }
  auto tmp = empty(shape_, type_, order, s);
  mem::copy(tmp.data(), packed, n, s);
  copy_from(tmp, s);
  if (wait) s.synchronize();
}

void device_ndarray::copy_from(const device_ndarray& src, stream_view s) {
  if (alloc_) check_generation(alloc_->generation(), "device array");
  check_writable("copy between device arrays");
  if (src.alloc_) check_generation(src.alloc_->generation(), "device array");
  if (type_ != src.type_)
    throw type_error("copy between device arrays: dtypes differ (" + type_.name() + " and " + src.type_.name() +
                     "); convert first");
  extents from = broadcast_strides(src.shape_, src.strides_, shape_);
  if (size_ == 0) return;
  auto n = static_cast<std::size_t>(nbytes());
  auto [lo, hi] = extent_bytes();
  auto [slo, shi] = src.extent_bytes();
  auto* d0 = static_cast<char*>(data());
  auto* s0 = static_cast<char*>(src.data());
  if (d0 == s0 && src.shape_ == shape_ && src.strides_ == strides_) return;  // every element onto itself
  bool overlap = s0 + slo < d0 + hi && d0 + lo < s0 + shi;
  // A driver copy of overlapping ranges is undefined (memcpy's rules), so
  // only disjoint ones take the one-copy path; the driver copes with peers.
  if (!overlap && src.shape_ == shape_ &&
      ((is_c_contiguous() && src.is_c_contiguous()) || (is_f_contiguous() && src.is_f_contiguous()))) {
    mem::copy(data(), src.data(), n, s);
    return;
  }
  // The kernels below run on this device, so on a stream of it: `s` when it
  // is one, else this device's legacy default stream, ordered after `s` and
  // `s` after it, which keeps the copy in `s`'s order.
  if (s.device() != device()) {
    stream_view here = stream_view::legacy_default(device());
    follow(s, here);
    copy_from(src, here);
    follow(here, s);
    return;
  }
  if (src.device() != device()) {
    // Gather the source on its own device (a copy made on `s` would land on
    // this one and come back here, forever), then move the bytes over:
    // mem::copy crosses devices.
    const device_ndarray* packed_src = &src;
    device_ndarray gathered;
    if (!src.is_c_contiguous()) {
      stream_view there = stream_view::legacy_default(src.device());
      follow(s, there);
      gathered = src.copy('C', there);
      follow(there, s);
      packed_src = &gathered;
    }
    auto packed = empty(src.shape_, type_, 'C', s);
    mem::copy(packed.data(), packed_src->data(), static_cast<std::size_t>(src.nbytes()), s);
    copy_from(packed, s);
    return;
  }
  // An overlapping source would be read while written: read it out first.
  if (overlap) {
    auto packed = empty(src.shape_, type_, 'C', s);
    packed.copy_from(src, s);
    copy_from(packed, s);
    return;
  }
  launch_strided(d0, strides_, s0, std::move(from), shape_, itemsize(), nullptr, s, device());
}

void device_ndarray::fill(const void* value, stream_view s) {
  if (alloc_) check_generation(alloc_->generation(), "device array");
  check_writable("fill");
  CUFORGE_EXPECTS(value != nullptr, "fill needs a value");
  if (size_ == 0) return;
  const auto* bytes = static_cast<const unsigned char*>(value);
  std::size_t k = itemsize();
  if (is_contiguous()) {
    if (k == 1 || k == 2 || k == 4) {
      std::uint32_t v = 0;
      std::memcpy(&v, value, k);
      mem::fill(data(), v, static_cast<unsigned>(k), static_cast<std::size_t>(size_), s);
      return;
    }
    if (std::all_of(bytes, bytes + k, [&](unsigned char b) { return b == bytes[0]; })) {
      mem::fill(data(), bytes[0], 1, static_cast<std::size_t>(nbytes()), s);
      return;
    }
  }
  if (k > sizeof(cuforge_strided_copy_args::value)) {
    // A record wider than the kernel's value field: the value from device memory, read by every element.
    device_ndarray one = empty({}, type_, 'C', s);
    one.copy_from_host(host_view{const_cast<void*>(value), {}, {}, type_}, s);
    launch_strided(static_cast<char*>(data()), strides_, static_cast<const char*>(one.data()),
                   extents(shape_.size(), 0), shape_, k, nullptr, s, device());
    s.synchronize();  // `one` is freed on return
    return;
  }
  launch_strided(static_cast<char*>(data()), strides_, nullptr, {}, shape_, k, value, s, device());
}

}  // namespace cuforge
