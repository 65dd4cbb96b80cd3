// device_ndarray copies and fills: host<->device round trips over every
// pairing of host layouts (C, F, padded, negative strides) and device
// layouts (C, F, stepped, reversed, permuted, offset), device<->device
// copies, broadcasting, overlapping source and destination with NumPy's
// semantics, mismatches, fills of every item size, 0-d and empty arrays,
// and use after close(). Elements are compared byte by byte.

#include <cuforge/devicearray/device_ndarray.hpp>
#include <cuforge/memory/allocation.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/error.hpp>
#include <cuforge/runtime/memory_ops.hpp>
#include <cuforge/runtime/stream.hpp>

#include <cuda.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <functional>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "array_support.hpp"
#include "test_support.hpp"

namespace {

using cuforge::testing::for_each_index;

using namespace cuforge;
using opt = std::optional<std::int64_t>;
using bytes = std::vector<unsigned char>;

index_item I(std::int64_t v) { return index_item{.k = index_item::kind::integer, .value = v}; }
index_item S(opt start = std::nullopt, opt stop = std::nullopt, opt step = std::nullopt) {
  return index_item{.k = index_item::kind::slice, .start = start, .stop = stop, .step = step};
}
device_ndarray at(const device_ndarray& a, std::vector<index_item> idx) { return a.view(idx); }

dtype of_size(std::size_t itemsize) {
  switch (itemsize) {
    case 1: return dtypes::uint8;
    case 2: return dtypes::uint16;
    case 4: return dtypes::uint32;
    case 8: return dtypes::uint64;
    default: return dtypes::complex128;
  }
}


std::int64_t c_index(const extents& shape, const extents& idx) {
  std::int64_t i = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) i = i * shape[d] + idx[d];
  return i;
}

/// Byte b of the element with C index i, for pattern `seed`.
unsigned char pattern(std::int64_t i, std::size_t b, int seed) {
  return static_cast<unsigned char>(i * 31 + static_cast<std::int64_t>(b) * 7 + seed * 101 + 1);
}

// ---------------------------------------------------------------------------
// Host arrays of any layout

enum class host_layout { c, f, padded, reversed_first, reversed_all };
const host_layout all_host_layouts[] = {host_layout::c, host_layout::f, host_layout::padded,
                                        host_layout::reversed_first, host_layout::reversed_all};
const char* name(host_layout l) {
  switch (l) {
    case host_layout::c: return "host C";
    case host_layout::f: return "host F";
    case host_layout::padded: return "host padded";
    case host_layout::reversed_first: return "host reversed axis 0";
    case host_layout::reversed_all: return "host reversed";
  }
  return "?";
}

struct host_array {
  bytes buf;
  std::int64_t origin = 0;  // byte offset of element (0, ..., 0)
  extents shape, strides;
  std::size_t itemsize = 0;

  host_array(const extents& shape_, std::size_t itemsize_, host_layout layout) : shape(shape_), itemsize(itemsize_) {
    auto k = static_cast<std::int64_t>(itemsize);
    std::size_t nd = shape.size();
    switch (layout) {
      case host_layout::c:
      case host_layout::f:
        strides = contiguous_strides(shape, itemsize, layout == host_layout::c ? 'C' : 'F');
        buf.resize(static_cast<std::size_t>(element_count(shape) * k));
        break;
      case host_layout::padded: {  // every other element of a twice-as-large C array
        extents twice(shape);
        for (auto& e : twice) e *= 2;
        strides = contiguous_strides(twice, itemsize, 'C');
        for (auto& s : strides) s *= 2;
        buf.resize(static_cast<std::size_t>(element_count(twice) * k));
        break;
      }
      case host_layout::reversed_first:
      case host_layout::reversed_all: {
        strides = contiguous_strides(shape, itemsize, 'C');
        buf.resize(static_cast<std::size_t>(element_count(shape) * k));
        for (std::size_t d = 0; d < nd; ++d) {
          if (layout == host_layout::reversed_first && d > 0) break;
          if (shape[d] > 0) origin += (shape[d] - 1) * strides[d];
          strides[d] = -strides[d];
        }
        break;
      }
    }
    std::fill(buf.begin(), buf.end(), 0xEE);
  }
  unsigned char* item(const extents& idx) {
    std::int64_t off = origin;
    for (std::size_t d = 0; d < idx.size(); ++d) off += idx[d] * strides[d];
    return buf.data() + off;
  }
  host_view view(dtype t) { return host_view{buf.empty() ? nullptr : buf.data() + origin, shape, strides, t}; }
  void write_pattern(int seed) {
    for_each_index(shape, [&](const extents& idx) {
      auto* p = item(idx);
      for (std::size_t b = 0; b < itemsize; ++b) p[b] = pattern(c_index(shape, idx), b, seed);
    });
  }
  /// The first element that differs from the pattern, or "" if none.
  std::string check_pattern(int seed) {
    std::string bad;
    for_each_index(shape, [&](const extents& idx) {
      if (!bad.empty()) return;
      auto* p = item(idx);
      for (std::size_t b = 0; b < itemsize; ++b)
        if (p[b] != pattern(c_index(shape, idx), b, seed)) {
          bad = "element " + std::to_string(c_index(shape, idx)) + " byte " + std::to_string(b);
          return;
        }
    });
    return bad;
  }
};

// ---------------------------------------------------------------------------
// Device arrays of any layout

enum class device_layout { c, f, stepped, reversed, permuted, offset };
const device_layout all_device_layouts[] = {device_layout::c,        device_layout::f,        device_layout::stepped,
                                            device_layout::reversed, device_layout::permuted, device_layout::offset};
const char* name(device_layout l) {
  switch (l) {
    case device_layout::c: return "device C";
    case device_layout::f: return "device F";
    case device_layout::stepped: return "device stepped";
    case device_layout::reversed: return "device reversed";
    case device_layout::permuted: return "device permuted";
    case device_layout::offset: return "device offset";
  }
  return "?";
}

/// A device array of `shape` in `layout`; its allocation's other bytes hold
/// 0xAB, so writes outside the array show.
struct device_case {
  device_ndarray base;   // the whole allocation, C-contiguous uint8
  device_ndarray array;  // the array under test
};

device_case make_device(const extents& shape, dtype t, device_layout layout) {
  std::size_t nd = shape.size();
  auto with_base = [&](const extents& base_shape, char order) {
    auto whole = device_ndarray::empty(base_shape, t, order);
    auto raw = device_ndarray(whole.allocation(), 0, {static_cast<std::int64_t>(whole.allocation()->size())}, {1},
                              dtypes::uint8);
    unsigned char sentinel = 0xAB;
    raw.fill(&sentinel, {});
    return std::pair{whole, raw};
  };
  switch (layout) {
    case device_layout::c:
    case device_layout::f: {
      auto [a, raw] = with_base(shape, layout == device_layout::c ? 'C' : 'F');
      return {raw, a};
    }
    case device_layout::stepped: {  // every other element of a twice-as-large array
      extents twice(shape);
      for (auto& e : twice) e *= 2;
      auto [a, raw] = with_base(twice, 'C');
      std::vector<index_item> idx(nd, S(std::nullopt, std::nullopt, 2));
      return {raw, a.view(idx)};
    }
    case device_layout::reversed: {
      auto [a, raw] = with_base(shape, 'C');
      std::vector<index_item> idx(nd, S(std::nullopt, std::nullopt, -1));
      return {raw, a.view(idx)};
    }
    case device_layout::permuted: {  // axes rotated: neither C nor F for ndim >= 3
      extents base_shape(nd);
      std::vector<std::int64_t> axes(nd);
      for (std::size_t i = 0; i < nd; ++i) {
        base_shape[i] = shape[(i + 1) % nd];
        axes[i] = static_cast<std::int64_t>((i + nd - 1) % nd);
      }
      auto [a, raw] = with_base(base_shape, 'C');
      return {raw, a.transpose(axes)};
    }
    case device_layout::offset: {  // inner part of a larger array along axis 0
      extents bigger(shape);
      if (nd == 0) {
        auto [a, raw] = with_base(shape, 'C');
        return {raw, a};
      }
      bigger[0] += 3;
      auto [a, raw] = with_base(bigger, 'C');
      std::vector<index_item> idx{S(2, 2 + shape[0])};
      return {raw, a.view(idx)};
    }
  }
  return {};
}

/// The allocation's bytes.
bytes raw_bytes(const device_ndarray& raw) {
  bytes out(static_cast<std::size_t>(raw.size()));
  raw.copy_to_host(host_view{out.data(), raw.shape(), {1}, dtypes::uint8}, {});
  return out;
}

/// How many bytes of the allocation outside `array` lost their sentinel.
std::int64_t clobbered_outside(const device_case& d) {
  bytes all = raw_bytes(d.base);
  std::vector<bool> inside(all.size(), false);
  auto base_addr = static_cast<const char*>(d.base.data());
  for_each_index(d.array.shape(), [&](const extents& idx) {
    std::int64_t off = static_cast<const char*>(d.array.data()) - base_addr;
    for (std::size_t k = 0; k < idx.size(); ++k) off += idx[k] * d.array.strides()[k];
    for (std::size_t b = 0; b < d.array.itemsize(); ++b) inside[static_cast<std::size_t>(off) + b] = true;
  });
  std::int64_t n = 0;
  for (std::size_t i = 0; i < all.size(); ++i)
    if (!inside[i] && all[i] != 0xAB) ++n;
  return n;
}

const std::vector<extents> shapes = {{7}, {3, 5}, {2, 3, 4}, {1, 4, 1, 3}, {2, 2, 2, 2, 3}};

// ---------------------------------------------------------------------------
// Host <-> device

TEST(CopyHost, RoundTripsOverEveryLayoutPairing) {
  for (const auto& shape : shapes) {
    for (auto dl : all_device_layouts) {
      auto d = make_device(shape, dtypes::int32, dl);
      for (auto src : all_host_layouts) {
        SCOPED_TRACE(std::string(name(dl)) + " <- " + name(src) + ", ndim " + std::to_string(shape.size()));
        host_array h(shape, 4, src);
        h.write_pattern(static_cast<int>(src));
        d.array.copy_from_host(h.view(dtypes::int32), {});
        ASSERT_EQ(clobbered_outside(d), 0) << "the copy wrote outside the array";
        for (auto dst : all_host_layouts) {
          SCOPED_TRACE(std::string("-> ") + name(dst));
          host_array out(shape, 4, dst);
          d.array.copy_to_host(out.view(dtypes::int32), {});
          ASSERT_EQ(out.check_pattern(static_cast<int>(src)), "");
        }
      }
    }
  }
}

TEST(CopyHost, EveryItemSizeThroughStridedLayouts) {
  for (std::size_t k : {1u, 2u, 4u, 8u, 16u}) {
    dtype t = of_size(k);
    for (auto dl : {device_layout::stepped, device_layout::reversed, device_layout::permuted, device_layout::c}) {
      for (auto hl : {host_layout::c, host_layout::padded, host_layout::reversed_all}) {
        SCOPED_TRACE(std::to_string(k) + "-byte items, " + name(dl) + ", " + name(hl));
        extents shape{3, 4, 5};
        auto d = make_device(shape, t, dl);
        host_array h(shape, k, hl);
        h.write_pattern(3);
        d.array.copy_from_host(h.view(t), {});
        ASSERT_EQ(clobbered_outside(d), 0);
        host_array out(shape, k, host_layout::f);
        d.array.copy_to_host(out.view(t), {});
        ASSERT_EQ(out.check_pattern(3), "");
      }
    }
  }
}

TEST(CopyHost, PinnedHostMemoryIsAsynchronousInStreamOrder) {
  stream s;
  extents shape{6, 7};
  auto d = make_device(shape, dtypes::int32, device_layout::stepped);
  host_array src(shape, 4, host_layout::c);
  src.write_pattern(9);
  d.array.copy_from_host(src.view(dtypes::int32), s);
  // Pinned destinations: contiguous (direct) and padded (staged).
  for (auto hl : {host_layout::c, host_layout::padded}) {
    SCOPED_TRACE(name(hl));
    host_array shape_only(shape, 4, hl);
    auto* pinned = static_cast<unsigned char*>(mem::alloc_pinned(shape_only.buf.size(), false));
    std::memset(pinned, 0, shape_only.buf.size());
    host_view hv{pinned, shape, shape_only.strides, dtypes::int32};
    d.array.copy_to_host(hv, s);
    s.synchronize();
    std::memcpy(shape_only.buf.data(), pinned, shape_only.buf.size());
    EXPECT_EQ(shape_only.check_pattern(9), "");
    mem::free_pinned(pinned);
  }
}

TEST(CopyHost, MismatchesAreRejected) {
  auto a = device_ndarray::empty({4}, dtypes::int32);
  std::vector<std::int32_t> v(4);
  std::vector<float> f(4);
  try {
    a.copy_from_host(host_view{v.data(), {3}, {4}, dtypes::int32}, {});
    ADD_FAILURE() << "a shape mismatch was accepted";
  } catch (const type_error& e) {
    ADD_FAILURE() << "a shape mismatch is not a type error: " << e.what();
  } catch (const logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("shapes differ"), std::string::npos) << e.what();
  }
  CUFORGE_EXPECT_THROW_WITH(type_error, "dtypes differ",
                            a.copy_from_host(host_view{f.data(), {4}, {4}, dtypes::float32}, {}));
  CUFORGE_EXPECT_THROW_WITH(type_error, "dtypes differ",
                            a.copy_to_host(host_view{f.data(), {4}, {4}, dtypes::float32}, {}));
  EXPECT_THROW(a.copy_to_host(host_view{v.data(), {2, 2}, {8, 4}, dtypes::int32}, {}), logic_error);
  EXPECT_THROW(a.copy_from_host(host_view{nullptr, {4}, {4}, dtypes::int32}, {}), logic_error);
  EXPECT_THROW(a.copy_to_host(host_view{nullptr, {4}, {4}, dtypes::int32}, {}), logic_error);
  // Strides that do not describe the shape.
  EXPECT_THROW(a.copy_from_host(host_view{v.data(), {4}, {}, dtypes::int32}, {}), logic_error);
  EXPECT_THROW(a.copy_to_host(host_view{v.data(), {4}, {4, 4}, dtypes::int32}, {}), logic_error);
}

// ---------------------------------------------------------------------------
// Device <-> device

TEST(CopyDevice, EveryLayoutPairing) {
  for (const auto& shape : shapes) {
    for (auto sl : all_device_layouts) {
      auto src = make_device(shape, dtypes::uint64, sl);
      host_array h(shape, 8, host_layout::c);
      h.write_pattern(5);
      src.array.copy_from_host(h.view(dtypes::uint64), {});
      for (auto dl : all_device_layouts) {
        SCOPED_TRACE(std::string(name(dl)) + " <- " + name(sl) + ", ndim " + std::to_string(shape.size()));
        auto dst = make_device(shape, dtypes::uint64, dl);
        stream s;
        dst.array.copy_from(src.array, s);
        s.synchronize();
        ASSERT_EQ(clobbered_outside(dst), 0);
        host_array out(shape, 8, host_layout::c);
        dst.array.copy_to_host(out.view(dtypes::uint64), {});
        ASSERT_EQ(out.check_pattern(5), "");
      }
    }
  }
}

std::vector<std::int32_t> values(const device_ndarray& a) {
  std::vector<std::int32_t> v(static_cast<std::size_t>(a.size()));
  a.copy_to_host(host_view{v.data(), a.shape(), contiguous_strides(a.shape(), 4, 'C'), dtypes::int32}, {});
  return v;
}

device_ndarray from_values(const std::vector<std::int32_t>& v, const extents& shape, char order = 'C') {
  auto a = device_ndarray::empty(shape, dtypes::int32, order);
  a.copy_from_host(host_view{const_cast<std::int32_t*>(v.data()), shape, contiguous_strides(shape, 4, 'C'),
                             dtypes::int32},
                   {});
  return a;
}

std::vector<std::int32_t> iota_values(std::size_t n) {
  std::vector<std::int32_t> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

TEST(CopyDevice, Broadcasting) {
  auto row = from_values({1, 2, 3}, {3});
  auto m = device_ndarray::empty({2, 3}, dtypes::int32);
  m.copy_from(row, {});
  EXPECT_EQ(values(m), (std::vector<std::int32_t>{1, 2, 3, 1, 2, 3}));
  auto col = from_values({7, 8}, {2, 1});
  m.copy_from(col, {});
  EXPECT_EQ(values(m), (std::vector<std::int32_t>{7, 7, 7, 8, 8, 8}));
  auto scalar = at(from_values({42}, {1}), {I(0)});
  EXPECT_EQ(scalar.ndim(), 0u);
  m.copy_from(scalar, {});
  EXPECT_EQ(values(m), std::vector<std::int32_t>(6, 42));
  // Into an F-ordered and a strided destination, from a reversed source.
  auto f = device_ndarray::empty({4, 3}, dtypes::int32, 'F');
  f.copy_from(at(row, {S(std::nullopt, std::nullopt, -1)}), {});
  EXPECT_EQ(values(f), (std::vector<std::int32_t>{3, 2, 1, 3, 2, 1, 3, 2, 1, 3, 2, 1}));
  auto big = from_values(std::vector<std::int32_t>(20, 0), {4, 5});
  auto every_other = at(big, {S(std::nullopt, std::nullopt, 2), S(1, std::nullopt, 2)});  // (2, 2)
  every_other.copy_from(from_values({5, 6}, {1, 2}), {});
  EXPECT_EQ(values(big), (std::vector<std::int32_t>{0, 5, 0, 6, 0, 0, 0, 0, 0, 0, 0, 5, 0, 6, 0, 0, 0, 0, 0, 0}));
}

TEST(CopyDevice, MismatchesAreRejected) {
  auto a = device_ndarray::empty({3}, dtypes::int32);
  CUFORGE_EXPECT_THROW_WITH(logic_error, "could not broadcast input array from shape (2,) into shape (3,)",
                            a.copy_from(device_ndarray::empty({2}, dtypes::int32), {}));
  CUFORGE_EXPECT_THROW_WITH(logic_error, "could not broadcast",
                            a.copy_from(device_ndarray::empty({2, 3}, dtypes::int32), {}));
  CUFORGE_EXPECT_THROW_WITH(type_error, "dtypes differ", a.copy_from(device_ndarray::empty({3}, dtypes::float32), {}));
  CUFORGE_EXPECT_THROW_WITH(type_error, "int32", a.copy_from(device_ndarray::empty({3}, dtypes::uint32), {}));
}

TEST(CopyDevice, OverlappingSourceAndDestinationBehaveAsInNumPy) {
  const std::size_t n = std::size_t{1} << 20;  // large: the copy is not one cache line
  auto ref = iota_values(n);
  {  // a[1:] = a[:-1]
    auto a = from_values(ref, {static_cast<std::int64_t>(n)});
    at(a, {S(1)}).copy_from(at(a, {S(std::nullopt, -1)}), {});
    auto v = values(a);
    std::vector<std::int32_t> want(ref);
    std::copy(ref.begin(), ref.end() - 1, want.begin() + 1);
    ASSERT_TRUE(v == want) << "a[1:] = a[:-1] went wrong";
  }
  {  // a[:-1] = a[1:]
    auto a = from_values(ref, {static_cast<std::int64_t>(n)});
    at(a, {S(std::nullopt, -1)}).copy_from(at(a, {S(1)}), {});
    auto v = values(a);
    std::vector<std::int32_t> want(ref);
    std::copy(ref.begin() + 1, ref.end(), want.begin());
    ASSERT_TRUE(v == want) << "a[:-1] = a[1:] went wrong";
  }
  {  // a[:] = a[::-1]
    auto a = from_values(ref, {static_cast<std::int64_t>(n)});
    a.copy_from(at(a, {S(std::nullopt, std::nullopt, -1)}), {});
    std::vector<std::int32_t> want(ref.rbegin(), ref.rend());
    ASSERT_TRUE(values(a) == want) << "a[:] = a[::-1] went wrong";
  }
  {  // a[2::2] = a[:-2:2]
    auto a = from_values(ref, {static_cast<std::int64_t>(n)});
    at(a, {S(2, std::nullopt, 2)}).copy_from(at(a, {S(std::nullopt, -2, 2)}), {});
    std::vector<std::int32_t> want(ref);
    for (std::size_t i = 2; i < n; i += 2) want[i] = ref[i - 2];
    ASSERT_TRUE(values(a) == want) << "a[2::2] = a[:-2:2] went wrong";
  }
  {  // m[1:, :] = m[:-1, :] on a C matrix: both sides C-contiguous
    extents shape{256, 1024};
    auto m = from_values(iota_values(256 * 1024), shape);
    at(m, {S(1), S()}).copy_from(at(m, {S(std::nullopt, -1), S()}), {});
    auto v = values(m);
    std::vector<std::int32_t> want = iota_values(256 * 1024);
    for (std::size_t r = 255; r >= 1; --r)
      std::copy(want.begin() + static_cast<std::ptrdiff_t>((r - 1) * 1024),
                want.begin() + static_cast<std::ptrdiff_t>(r * 1024), want.begin() + static_cast<std::ptrdiff_t>(r * 1024));
    ASSERT_TRUE(v == want) << "m[1:, :] = m[:-1, :] went wrong";
  }
  {  // m[:] = m.T on a square matrix
    auto m = from_values(iota_values(64 * 64), {64, 64});
    m.copy_from(m.transpose(), {});
    auto v = values(m);
    bool ok = true;
    for (int i = 0; i < 64 && ok; ++i)
      for (int j = 0; j < 64 && ok; ++j) ok = v[i * 64 + j] == j * 64 + i;
    EXPECT_TRUE(ok) << "m[:] = m.T went wrong";
  }
  {  // a[:] = a
    auto a = from_values(ref, {static_cast<std::int64_t>(n)});
    a.copy_from(a, {});
    ASSERT_TRUE(values(a) == ref);
  }
}

// ---------------------------------------------------------------------------
// Fill

TEST(Fill, EveryItemSizeContiguousAndStrided) {
  for (std::size_t k : {1u, 2u, 4u, 8u, 16u}) {
    dtype t = of_size(k);
    // A value whose bytes differ, and one whose bytes are all the same.
    unsigned char mixed[16], same[16];
    for (std::size_t b = 0; b < 16; ++b) {
      mixed[b] = static_cast<unsigned char>(0x11 * (b + 1));
      same[b] = 0x5C;
    }
    for (const unsigned char* value : {static_cast<const unsigned char*>(mixed), static_cast<const unsigned char*>(same)}) {
      for (auto dl : all_device_layouts) {
        SCOPED_TRACE(std::to_string(k) + "-byte items, " + name(dl) + (value == same ? ", uniform bytes" : ""));
        extents shape{3, 5, 2};
        auto d = make_device(shape, t, dl);
        d.array.fill(value, {});
        ASSERT_EQ(clobbered_outside(d), 0) << "fill wrote outside the array";
        host_array out(shape, k, host_layout::c);
        d.array.copy_to_host(out.view(t), {});
        bool ok = true;
        for_each_index(shape, [&](const extents& idx) { ok = ok && std::memcmp(out.item(idx), value, k) == 0; });
        ASSERT_TRUE(ok);
      }
    }
  }
}

TEST(Fill, TypedValues) {
  auto c = device_ndarray::empty({5}, dtypes::complex128);
  std::complex<double> z(1.5, -2.25);
  at(c, {S(std::nullopt, std::nullopt, 2)}).fill(&z, {});
  std::vector<std::complex<double>> out(5);
  c.copy_to_host(host_view{out.data(), {5}, {16}, dtypes::complex128}, {});
  EXPECT_EQ(out[0], z);
  EXPECT_EQ(out[2], z);
  EXPECT_EQ(out[4], z);
  auto d = device_ndarray::empty({4, 4}, dtypes::float64, 'F');
  double x = -0.0;
  d.fill(&x, {});
  std::vector<double> dv(16, 1.0);
  d.copy_to_host(host_view{dv.data(), {4, 4}, {32, 8}, dtypes::float64}, {});
  for (double e : dv) EXPECT_TRUE(e == 0.0 && std::signbit(e));
  EXPECT_THROW(d.fill(nullptr, {}), logic_error);
}

// ---------------------------------------------------------------------------
// 0-d and empty arrays

TEST(ZeroDimensional, CopiesFillsAndViews) {
  auto a = device_ndarray::empty({}, dtypes::float64);
  EXPECT_EQ(a.ndim(), 0u);
  EXPECT_EQ(a.size(), 1);
  EXPECT_EQ(a.nbytes(), 8);
  EXPECT_TRUE(a.strides().empty());
  EXPECT_TRUE(a.is_c_contiguous());
  EXPECT_TRUE(a.is_f_contiguous());
  double in = 3.25, out = 0;
  a.copy_from_host(host_view{&in, {}, {}, dtypes::float64}, {});
  a.copy_to_host(host_view{&out, {}, {}, dtypes::float64}, {});
  EXPECT_EQ(out, 3.25);
  double nine = 9;
  a.fill(&nine, {});
  a.copy_to_host(host_view{&out, {}, {}, dtypes::float64}, {});
  EXPECT_EQ(out, 9);
  EXPECT_EQ(a.view({}).ndim(), 0u);
  std::vector<index_item> na{index_item{.k = index_item::kind::newaxis}};
  EXPECT_EQ(a.view(na).shape(), (extents{1}));
  EXPECT_EQ(a.reshape({1, 1}).shape(), (extents{1, 1}));
  EXPECT_EQ(a.ravel().shape(), (extents{1}));
  auto b = device_ndarray::empty({}, dtypes::float64);
  b.copy_from(a, {});
  b.copy_to_host(host_view{&out, {}, {}, dtypes::float64}, {});
  EXPECT_EQ(out, 9);
  auto c = a.copy();
  EXPECT_EQ(c.ndim(), 0u);
  EXPECT_NE(c.allocation(), a.allocation());
}

TEST(EmptyArrays, EverythingIsANoOp) {
  for (const extents& shape : {extents{0}, extents{3, 0, 2}, extents{0, 0}}) {
    SCOPED_TRACE(shape.size());
    auto a = device_ndarray::empty(shape, dtypes::int32);
    EXPECT_EQ(a.size(), 0);
    EXPECT_EQ(a.nbytes(), 0);
    EXPECT_TRUE(a.valid());
    EXPECT_EQ(a.extent_bytes(), (std::pair<std::int64_t, std::int64_t>{0, 0}));
    a.copy_from_host(host_view{nullptr, shape, contiguous_strides(shape, 4, 'C'), dtypes::int32}, {});
    a.copy_to_host(host_view{nullptr, shape, contiguous_strides(shape, 4, 'C'), dtypes::int32}, {});
    std::int32_t v = 1;
    a.fill(&v, {});
    auto b = device_ndarray::empty(shape, dtypes::int32, 'F');
    b.copy_from(a, {});
    EXPECT_EQ(a.copy().size(), 0);
    EXPECT_EQ(a.reshape({-1}).shape(), (extents{0}));
    EXPECT_EQ(a.transpose().size(), 0);
    EXPECT_NO_THROW(stream_view{}.synchronize());
  }
  auto a = device_ndarray::empty({5}, dtypes::int32);
  auto none = at(a, {S(3, 1)});
  EXPECT_EQ(none.shape(), (extents{0}));
  none.copy_from(none, {});
  std::int32_t v = 4;
  none.fill(&v, {});
  // An empty source does not broadcast into a non-empty destination.
  EXPECT_THROW(a.copy_from(none, {}), logic_error);
}

// ---------------------------------------------------------------------------
// close()

TEST(Close, ArraysMadeBeforeAreUnusableNewOnesWork) {
  auto a = from_values({1, 2, 3, 4}, {4});
  auto view = at(a, {S(1)});
  std::vector<std::int32_t> host(4);
  close();
  host_view hv{host.data(), {4}, {4}, dtypes::int32};
  CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_CONTEXT_IS_DESTROYED, a.copy_to_host(hv, {}));
  CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_CONTEXT_IS_DESTROYED, a.copy_from_host(hv, {}));
  std::int32_t v = 0;
  CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_CONTEXT_IS_DESTROYED, a.fill(&v, {}));
  CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_CONTEXT_IS_DESTROYED, (void)a.view(std::vector<index_item>{S(1)}));
  CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_CONTEXT_IS_DESTROYED, (void)a.copy());
  CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_CONTEXT_IS_DESTROYED, (void)view.copy());
  auto fresh = device_ndarray::empty({4}, dtypes::int32);
  CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_CONTEXT_IS_DESTROYED, fresh.copy_from(a, {}));
  CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_CONTEXT_IS_DESTROYED, a.copy_from(fresh, {}));
  // Everything made after close() works, including the strided copy kernel.
  auto b = from_values({5, 6, 7, 8, 9, 10}, {2, 3});
  EXPECT_EQ(values(b.transpose()), (std::vector<std::int32_t>{5, 8, 6, 9, 7, 10}));
  std::int32_t eleven = 11;
  at(b, {S(), S(std::nullopt, std::nullopt, 2)}).fill(&eleven, {});
  EXPECT_EQ(values(b), (std::vector<std::int32_t>{11, 6, 11, 11, 9, 11}));
}

// ---------------------------------------------------------------------------
// Several devices (see MultiDevice.OnTwoCpuDevices)

TEST(MultiDevice, OnTwoCpuDevices) {
  CUFORGE_REQUIRE_CPU("there, the MultiDevice tests run directly on machines with several GPUs");
  if (device::count() >= 2) GTEST_SKIP() << "already running with several devices";
  EXPECT_EQ(cuforge::testing::rerun_self("MultiDevice.*:-MultiDevice.OnTwoCpuDevices", "CUFORGE_CPU_DEVICES", "2"), 0)
      << "a MultiDevice test failed on two cpu devices (its output is above)";
}

TEST(MultiDevice, CopiesAcrossDevices) {
  CUFORGE_REQUIRE_DEVICES(2);
  stream s0;
  stream s1(stream::options{}, 1);
  auto src_values = iota_values(20);
  auto a = device_ndarray::empty({4, 5}, dtypes::int32, 'C', s1);  // device 1
  EXPECT_EQ(a.device(), 1);
  a.copy_from_host(host_view{src_values.data(), {4, 5}, {20, 4}, dtypes::int32}, s1);
  s1.synchronize();
  EXPECT_EQ(values(a), src_values);
  // Device 1 to device 0, on a stream of either device, into any layout.
  for (stream_view s : {s0.view(), s1.view()}) {
    SCOPED_TRACE("on a stream of device " + std::to_string(s.device()));
    auto b = device_ndarray::empty({4, 5}, dtypes::int32, 'C', s0);
    b.copy_from(a, s);
    s.synchronize();
    EXPECT_EQ(values(b), src_values);
    auto t = device_ndarray::empty({5, 4}, dtypes::int32, 'F', s0);
    t.copy_from(a.transpose(), s);
    s.synchronize();
    EXPECT_EQ(values(t), values(a.transpose()));
    auto wide = device_ndarray::empty({4, 10}, dtypes::int32, 'C', s0);
    std::int32_t zero = 0;
    wide.fill(&zero, s0);
    s0.synchronize();
    at(wide, {S(), S(std::nullopt, std::nullopt, 2)}).copy_from(at(a, {S(std::nullopt, std::nullopt, -1)}), s);
    s.synchronize();
    auto w = values(wide);
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 10; ++c)
        ASSERT_EQ(w[r * 10 + c], c % 2 ? 0 : src_values[(3 - r) * 5 + c / 2]) << r << ", " << c;
    // And back: device 0 to a strided view on device 1, broadcasting a row.
    auto row = from_values({7, 8, 9, 10, 11}, {5});
    auto back = device_ndarray::empty({4, 5}, dtypes::int32, 'C', s1);
    at(back, {S(std::nullopt, std::nullopt, -1)}).copy_from(row, s);
    s.synchronize();
    std::vector<std::int32_t> want;
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 5; ++c) want.push_back(7 + c);
    EXPECT_EQ(values(back), want);
  }
}

}  // namespace
