// device_ndarray construction and views: empty/empty_strided, basic
// indexing checked against a reference implementation of Python's slice
// semantics, reshape (view or copy), transpose, ravel, split, bind, copy.
// Values are always read back from the device and compared element by
// element with what NumPy would give.

#include <cuforge/devicearray/device_ndarray.hpp>
#include <cuforge/memory/allocation.hpp>
#include <cuforge/memory/current_resource.hpp>
#include <cuforge/memory/deallocation.hpp>
#include <cuforge/memory/memory_resource.hpp>
#include <cuforge/memory/statistics_resource_adaptor.hpp>
#include <cuforge/runtime/error.hpp>
#include <cuforge/runtime/stream.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "array_support.hpp"
#include "test_support.hpp"

namespace {

using cuforge::testing::for_each_index;

using namespace cuforge;
using opt = std::optional<std::int64_t>;
constexpr std::int64_t i64_max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t i64_min = std::numeric_limits<std::int64_t>::min();

index_item I(std::int64_t v) { return index_item{.k = index_item::kind::integer, .value = v}; }
index_item S(opt start = std::nullopt, opt stop = std::nullopt, opt step = std::nullopt) {
  return index_item{.k = index_item::kind::slice, .start = start, .stop = stop, .step = step};
}
index_item E() { return index_item{.k = index_item::kind::ellipsis}; }
index_item NA() { return index_item{.k = index_item::kind::newaxis}; }

device_ndarray at(const device_ndarray& a, std::vector<index_item> idx) { return a.view(idx); }

/// An int32 array of `shape` holding 0, 1, 2, ... in C order.
device_ndarray iota(const extents& shape, char order = 'C') {
  auto a = device_ndarray::empty(shape, dtypes::int32, order);
  std::vector<std::int32_t> v(static_cast<std::size_t>(element_count(shape)));
  std::iota(v.begin(), v.end(), 0);
  a.copy_from_host(host_view{v.data(), shape, contiguous_strides(shape, 4, 'C'), dtypes::int32}, {});
  return a;
}

/// The elements of an int32 array in C order.
std::vector<std::int32_t> values(const device_ndarray& a) {
  std::vector<std::int32_t> v(static_cast<std::size_t>(a.size()));
  a.copy_to_host(host_view{v.data(), a.shape(), contiguous_strides(a.shape(), 4, 'C'), dtypes::int32}, {});
  return v;
}


/// What a view's elements must be when its allocation holds 0, 1, 2, ...
/// as int32 (base arrays from iota()): read through its own offset and
/// strides, which the slice tests check separately.
std::vector<std::int32_t> expected_from_layout(const device_ndarray& v) {
  std::vector<std::int32_t> out;
  for_each_index(v.shape(), [&](const extents& idx) {
    std::int64_t byte = v.offset();
    for (std::size_t d = 0; d < idx.size(); ++d) byte += idx[d] * v.strides()[d];
    out.push_back(static_cast<std::int32_t>(byte / 4));
  });
  return out;
}

/// Python's slice.indices() plus the length, as CPython computes them
/// (PySlice_Unpack + PySlice_AdjustIndices).
struct py_slice {
  std::int64_t start, step, len;
};
py_slice python_slice(std::int64_t n, opt start, opt stop, opt step_) {
  std::int64_t step = step_.value_or(1);
  if (step < -i64_max) step = -i64_max;  // so that -step cannot overflow
  std::int64_t b = start ? *start : (step < 0 ? i64_max : 0);
  std::int64_t e = stop ? *stop : (step < 0 ? i64_min : i64_max);
  auto adjust = [&](std::int64_t& x) {
    if (x < 0) {
      x += n;
      if (x < 0) x = step < 0 ? -1 : 0;
    } else if (x >= n) {
      x = step < 0 ? n - 1 : n;
    }
  };
  adjust(b);
  adjust(e);
  std::int64_t len = 0;
  if (step < 0) {
    if (e < b) len = (b - e - 1) / (-step) + 1;
  } else if (b < e) {
    len = (e - b - 1) / step + 1;
  }
  return {b, step, len};
}

// ---------------------------------------------------------------------------
// Construction

TEST(Empty, COrderAndFOrderStrides) {
  auto c = device_ndarray::empty({2, 3, 4}, dtypes::int32);
  EXPECT_EQ(c.strides(), (extents{48, 16, 4}));
  EXPECT_EQ(c.shape(), (extents{2, 3, 4}));
  EXPECT_EQ(c.ndim(), 3u);
  EXPECT_EQ(c.size(), 24);
  EXPECT_EQ(c.nbytes(), 96);
  EXPECT_EQ(c.itemsize(), 4u);
  EXPECT_EQ(c.offset(), 0);
  EXPECT_TRUE(c.is_c_contiguous());
  EXPECT_FALSE(c.is_f_contiguous());
  ASSERT_NE(c.allocation(), nullptr);
  EXPECT_GE(c.allocation()->size(), 96u);
  EXPECT_EQ(c.data(), c.allocation()->data());
  EXPECT_EQ(c.device(), 0);
  EXPECT_TRUE(c.valid());
  EXPECT_EQ(c.extent_bytes(), (std::pair<std::int64_t, std::int64_t>{0, 96}));

  auto f = device_ndarray::empty({2, 3, 4}, dtypes::float64, 'F');
  EXPECT_EQ(f.strides(), (extents{8, 16, 48}));
  EXPECT_TRUE(f.is_f_contiguous());
  EXPECT_FALSE(f.is_c_contiguous());
  EXPECT_TRUE(f.is_contiguous());

  CUFORGE_EXPECT_THROW_WITH(logic_error, "order", (void)device_ndarray::empty({2}, dtypes::int32, 'K'));
  CUFORGE_EXPECT_THROW_WITH(logic_error, "negative dimensions", (void)device_ndarray::empty({2, -1}, dtypes::int32));
}

TEST(Empty, ContiguousStridesOfAnArrayTooBigToMake) {
  // The product past the outermost dimension is never a stride: it saturates rather than
  // overflowing int64 (undefined; UBSan runs this suite in CI). 2^60 float64s: 2^63 bytes.
  constexpr std::int64_t saturated = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(contiguous_strides({std::int64_t{1} << 60}, 8, 'C'), (extents{8}));
  EXPECT_EQ(contiguous_strides({std::int64_t{1} << 59, 4}, 8, 'F'), (extents{8, std::int64_t{1} << 62}));
  EXPECT_EQ(contiguous_strides({std::int64_t{1} << 60, 4}, 8, 'F'), (extents{8, saturated}));
  EXPECT_EQ(contiguous_strides({4, std::int64_t{1} << 62}, 4, 'C'), (extents{saturated, 4}));
}

TEST(Empty, BoundToItsStreamAndFromTheCurrentResource) {
  auto stats = std::make_shared<memory::statistics_resource_adaptor>(memory::current_resource());
  memory::set_current_resource(stats);
  struct restore {
    ~restore() { memory::set_current_resource(nullptr); }
  } guard;
  stream s;
  {
    auto a = device_ndarray::empty({10, 10}, dtypes::float32, 'C', s);
    EXPECT_EQ(a.stream(), s.view());
    EXPECT_EQ(a.allocation()->stream(), s.view());
    EXPECT_EQ(stats->stats().current_count, 1u);
    EXPECT_EQ(stats->stats().current_bytes, 400u);
  }
  s.synchronize();
  memory::synchronize();
  EXPECT_EQ(stats->stats().current_count, 0u);
}

TEST(Empty, AbsurdSizeIsOutOfMemory) {
  try {
    (void)device_ndarray::empty({std::int64_t{1} << 40, std::int64_t{1} << 21}, dtypes::int8);
    FAIL() << "allocating 2^61 bytes succeeded";
  } catch (const out_of_memory& e) {
    EXPECT_EQ(e.bytes(), std::size_t{1} << 61);
  }
  EXPECT_EQ(values(iota({3})), (std::vector<std::int32_t>{0, 1, 2}));
}

TEST(EmptyStrided, ValidatesItsStrides) {
  auto a = device_ndarray::empty_strided({2, 3}, {32, 4}, dtypes::int32);
  EXPECT_EQ(a.strides(), (extents{32, 4}));
  EXPECT_GE(a.allocation()->size(), 44u);
  EXPECT_FALSE(a.is_c_contiguous());
  EXPECT_FALSE(a.is_f_contiguous());
  auto overlapping = device_ndarray::empty_strided({4, 4}, {4, 4}, dtypes::int32);  // allowed, as NumPy does
  EXPECT_EQ(overlapping.size(), 16);
  auto zero = device_ndarray::empty_strided({3}, {0}, dtypes::int64);
  EXPECT_EQ(zero.size(), 3);
  CUFORGE_EXPECT_THROW_WITH(logic_error, "negative strides",
                            (void)device_ndarray::empty_strided({2, 3}, {-12, 4}, dtypes::int32));
  CUFORGE_EXPECT_THROW_WITH(logic_error, "do not match",
                            (void)device_ndarray::empty_strided({2, 3}, {12}, dtypes::int32));
  CUFORGE_EXPECT_THROW_WITH(logic_error, "multiple",
                            (void)device_ndarray::empty_strided({2, 3}, {12, 3}, dtypes::int32));
  CUFORGE_EXPECT_THROW_WITH(logic_error, "too big",
                            (void)device_ndarray::empty_strided({3, 3}, {std::int64_t{1} << 62, 4}, dtypes::int32));
}

TEST(Construct, OverAnAllocationChecksTheFit) {
  auto alloc = memory::allocation::device(100);
  device_ndarray fits(alloc, 20, {20}, {4}, dtypes::int32);
  EXPECT_EQ(fits.data(), static_cast<char*>(alloc->data()) + 20);
  device_ndarray backwards(alloc, 96, {25}, {-4}, dtypes::int32);
  EXPECT_EQ(backwards.extent_bytes(), (std::pair<std::int64_t, std::int64_t>{-96, 4}));
  CUFORGE_EXPECT_THROW_WITH(logic_error, "does not fit", device_ndarray(alloc, 0, {26}, {4}, dtypes::int32));
  CUFORGE_EXPECT_THROW_WITH(logic_error, "does not fit", device_ndarray(alloc, 92, {25}, {-4}, dtypes::int32));
  CUFORGE_EXPECT_THROW_WITH(logic_error, "does not fit", device_ndarray(alloc, -4, {2}, {4}, dtypes::int32));
  EXPECT_THROW(device_ndarray(nullptr, 0, {2}, {4}, dtypes::int32), logic_error);
  EXPECT_THROW(device_ndarray(alloc, 0, {2, 2}, {4}, dtypes::int32), logic_error);
  device_ndarray nothing(nullptr, 0, {0, 3}, {12, 4}, dtypes::int32);
  EXPECT_TRUE(nothing.valid());
  EXPECT_EQ(nothing.data(), nullptr);
}

TEST(Contiguity, FollowsNumPysRelaxedRules) {
  auto alloc = memory::allocation::device(4096);
  auto mk = [&](extents shape, extents strides, std::int64_t offset = 0) {
    return device_ndarray(alloc, offset, shape, strides, dtypes::int32);
  };
  EXPECT_TRUE(mk({6}, {4}).is_c_contiguous());
  EXPECT_TRUE(mk({6}, {4}).is_f_contiguous());
  EXPECT_FALSE(mk({6}, {8}).is_contiguous());
  // Extent-1 axes may have any stride.
  EXPECT_TRUE(mk({1, 3}, {999 * 4, 4}).is_c_contiguous());
  EXPECT_TRUE(mk({1, 3}, {999 * 4, 4}).is_f_contiguous());
  EXPECT_TRUE(mk({3, 1}, {4, 0}).is_c_contiguous());
  // One element (or none) is contiguous whatever its strides.
  EXPECT_TRUE(mk({1, 1}, {40, 80}).is_c_contiguous());
  EXPECT_TRUE(mk({0, 5}, {8, 44}).is_c_contiguous());
  EXPECT_FALSE(mk({2, 3}, {4, 8}).is_c_contiguous());
  EXPECT_TRUE(mk({2, 3}, {4, 8}).is_f_contiguous());
  EXPECT_FALSE(mk({3}, {-4}, 8).is_contiguous());
}

// ---------------------------------------------------------------------------
// Indexing

TEST(View, IntegersAndNegativeIntegers) {
  auto a = iota({10});
  for (std::int64_t i = -10; i < 10; ++i) {
    auto v = at(a, {I(i)});
    EXPECT_EQ(v.ndim(), 0u);
    EXPECT_EQ(v.size(), 1);
    EXPECT_EQ(values(v), (std::vector<std::int32_t>{static_cast<std::int32_t>(i < 0 ? i + 10 : i)})) << i;
    EXPECT_EQ(v.allocation(), a.allocation()) << "an index is a view";
  }
  auto m = iota({3, 4});
  EXPECT_EQ(values(at(m, {I(1)})), (std::vector<std::int32_t>{4, 5, 6, 7}));
  EXPECT_EQ(values(at(m, {I(-1), I(-2)})), (std::vector<std::int32_t>{10}));
  EXPECT_EQ(values(at(m, {S(), I(1)})), (std::vector<std::int32_t>{1, 5, 9}));
}

TEST(View, OutOfRangeIntegersUseNumPysMessage) {
  auto a = iota({10});
  CUFORGE_EXPECT_THROW_WITH(index_error, "index 10 is out of bounds for axis 0 with size 10", (void)at(a, {I(10)}));
  CUFORGE_EXPECT_THROW_WITH(index_error, "index -11 is out of bounds for axis 0 with size 10", (void)at(a, {I(-11)}));
  auto m = iota({3, 4});
  CUFORGE_EXPECT_THROW_WITH(index_error, "index 4 is out of bounds for axis 1 with size 4", (void)at(m, {I(0), I(4)}));
  CUFORGE_EXPECT_THROW_WITH(index_error, "index -5 is out of bounds for axis 1 with size 4",
                            (void)at(m, {E(), I(-5)}));
  auto empty = iota({0});
  CUFORGE_EXPECT_THROW_WITH(index_error, "index 0 is out of bounds for axis 0 with size 0", (void)at(empty, {I(0)}));
  CUFORGE_EXPECT_THROW_WITH(index_error, "out of bounds", (void)at(a, {I(i64_max)}));
  CUFORGE_EXPECT_THROW_WITH(index_error, "out of bounds", (void)at(a, {I(i64_min)}));
}

TEST(View, TooManyIndicesAndMalformedIndices) {
  auto a = iota({10});
  CUFORGE_EXPECT_THROW_WITH(index_error, "too many indices for array: array is 1-dimensional, but 2 were indexed",
                            (void)at(a, {I(0), I(0)}));
  CUFORGE_EXPECT_THROW_WITH(index_error, "but 3 were indexed", (void)at(iota({2, 2}), {S(), I(0), S()}));
  CUFORGE_EXPECT_THROW_WITH(index_error, "array is 0-dimensional, but 1 were indexed", (void)at(at(a, {I(3)}), {I(0)}));
  CUFORGE_EXPECT_THROW_WITH(index_error, "single ellipsis", (void)at(a, {E(), E()}));
  try {
    (void)at(a, {S(0, 5, 0)});
    ADD_FAILURE() << "a zero step was accepted";
  } catch (const index_error& e) {
    ADD_FAILURE() << "a zero step is a ValueError in NumPy, not an IndexError: " << e.what();
  } catch (const logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("slice step cannot be zero"), std::string::npos) << e.what();
  }
}

TEST(View, EllipsisAndNewAxis) {
  auto a = iota({2, 3, 4});
  auto all = at(a, {E()});
  EXPECT_EQ(all.shape(), a.shape());
  EXPECT_EQ(all.strides(), a.strides());
  EXPECT_EQ(values(all), values(a));
  EXPECT_EQ(at(a, {}).shape(), a.shape());

  auto last = at(a, {E(), I(1)});
  EXPECT_EQ(last.shape(), (extents{2, 3}));
  EXPECT_EQ(values(last), (std::vector<std::int32_t>{1, 5, 9, 13, 17, 21}));
  auto first = at(a, {I(1), E()});
  EXPECT_EQ(first.shape(), (extents{3, 4}));
  EXPECT_EQ(values(first), expected_from_layout(first));
  EXPECT_EQ(values(first).front(), 12);
  auto middle = at(a, {I(0), E(), I(0)});
  EXPECT_EQ(values(middle), (std::vector<std::int32_t>{0, 4, 8}));

  auto na = at(a, {NA(), S(), NA(), S(), S(), NA()});
  EXPECT_EQ(na.shape(), (extents{1, 2, 1, 3, 4, 1}));
  EXPECT_EQ(values(na), values(a));

  // a[1, ..., None, ::-1] -> shape (3, 1, 4), reading row 1 backwards.
  auto mixed = at(a, {I(1), E(), NA(), S(std::nullopt, std::nullopt, -1)});
  EXPECT_EQ(mixed.shape(), (extents{3, 1, 4}));
  EXPECT_EQ(mixed.strides()[0], 16);
  EXPECT_EQ(mixed.strides()[2], -4);
  EXPECT_EQ(mixed.offset(), 12 * 4 + 3 * 4);
  EXPECT_EQ(values(mixed), (std::vector<std::int32_t>{15, 14, 13, 12, 19, 18, 17, 16, 23, 22, 21, 20}));

  auto scalar = at(a, {I(1), I(2), I(3)});
  EXPECT_EQ(at(scalar, {NA(), NA()}).shape(), (extents{1, 1}));
  EXPECT_EQ(values(at(scalar, {E(), NA()})), (std::vector<std::int32_t>{23}));
}

TEST(View, SlicesMatchPythonSemanticsOverRandomCases) {
  std::mt19937_64 rng(20240611);
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  // Ordinary values and the extremes, where the arithmetic must not overflow.
  const std::int64_t extremes[] = {i64_min, i64_min + 1, -i64_max / 2, i64_max / 2, i64_max - 1, i64_max};
  auto random_bound = [&]() -> opt {
    auto r = pick(0, 9);
    if (r == 0) return std::nullopt;
    if (r == 1) return extremes[pick(0, 5)];
    return pick(-16, 16);
  };
  auto random_step = [&]() -> opt {
    auto r = pick(0, 9);
    if (r == 0) return std::nullopt;
    if (r == 1) return extremes[pick(0, 5)];
    std::int64_t s = 0;
    while (s == 0) s = pick(-5, 5);
    return s;
  };
  std::map<std::int64_t, device_ndarray> bases;
  for (std::int64_t n = 0; n <= 13; ++n) bases.emplace(n, iota({n}));
  int checked = 0;
  for (int trial = 0; trial < 1500; ++trial) {
    std::int64_t n = pick(0, 13);
    opt start = random_bound(), stop = random_bound(), step = random_step();
    auto want = python_slice(n, start, stop, step);
    auto describe = [&] {
      auto s = [](opt v) { return v ? std::to_string(*v) : std::string("None"); };
      return "n=" + std::to_string(n) + " [" + s(start) + ":" + s(stop) + ":" + s(step) + "]";
    };
    SCOPED_TRACE(describe());
    const auto& a = bases.at(n);
    device_ndarray v;
    ASSERT_NO_THROW(v = at(a, {S(start, stop, step)}));
    ASSERT_EQ(v.shape(), (extents{want.len}));
    std::vector<std::int32_t> expect;
    for (std::int64_t i = 0; i < want.len; ++i) expect.push_back(static_cast<std::int32_t>(want.start + i * want.step));
    if (want.len > 0) {
      EXPECT_EQ(v.offset(), want.start * 4);
    }
    if (want.len > 1) {
      EXPECT_EQ(v.strides()[0], want.step * 4);
    }
    ASSERT_EQ(values(v), expect);
    ++checked;
  }
  EXPECT_EQ(checked, 1500);
}

TEST(View, TwoDimensionalSlicesOverRandomCases) {
  std::mt19937_64 rng(7);
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  auto bound = [&]() -> opt { return pick(0, 3) == 0 ? opt() : opt(pick(-8, 8)); };
  auto step = [&]() -> opt {
    if (pick(0, 3) == 0) return std::nullopt;
    std::int64_t s = 0;
    while (s == 0) s = pick(-3, 3);
    return s;
  };
  for (int trial = 0; trial < 200; ++trial) {
    std::int64_t r = pick(0, 6), c = pick(0, 6);
    auto a = iota({r, c});
    opt r0 = bound(), r1 = bound(), rs = step(), c0 = bound(), c1 = bound(), cs = step();
    auto wr = python_slice(r, r0, r1, rs), wc = python_slice(c, c0, c1, cs);
    auto v = at(a, {S(r0, r1, rs), S(c0, c1, cs)});
    ASSERT_EQ(v.shape(), (extents{wr.len, wc.len})) << "trial " << trial;
    std::vector<std::int32_t> expect;
    for (std::int64_t i = 0; i < wr.len; ++i)
      for (std::int64_t j = 0; j < wc.len; ++j)
        expect.push_back(static_cast<std::int32_t>((wr.start + i * wr.step) * c + wc.start + j * wc.step));
    ASSERT_EQ(values(v), expect) << "trial " << trial;
    // A slice of a slice reads through both.
    if (wr.len > 1) {
      auto vv = at(v, {S(std::nullopt, std::nullopt, -1)});
      ASSERT_EQ(values(vv), expected_from_layout(vv)) << "trial " << trial;
    }
  }
}

// ---------------------------------------------------------------------------
// Reshape, transpose, ravel, split, bind, copy

TEST(Reshape, InfersOneExtentAndIsAViewWhenContiguous) {
  auto a = iota({2, 3, 4});
  auto b = a.reshape({4, -1});
  EXPECT_EQ(b.shape(), (extents{4, 6}));
  EXPECT_EQ(b.strides(), (extents{24, 4}));
  EXPECT_EQ(b.allocation(), a.allocation()) << "a contiguous reshape is a view";
  EXPECT_EQ(values(b), values(a));
  EXPECT_EQ(a.reshape({-1}).shape(), (extents{24}));
  EXPECT_EQ(a.reshape({-1, 1, 2}).shape(), (extents{12, 1, 2}));
  // A contiguous part of an array keeps its offset.
  auto rows = at(iota({4, 3}), {S(1, 3)});
  auto flat = rows.reshape({6});
  EXPECT_EQ(flat.offset(), 12);
  EXPECT_EQ(values(flat), (std::vector<std::int32_t>{3, 4, 5, 6, 7, 8}));
  // Size-1 arrays and 0-d.
  auto one = iota({1});
  EXPECT_EQ(one.reshape({}).ndim(), 0u);
  EXPECT_EQ(one.reshape({1, 1, 1}).shape(), (extents{1, 1, 1}));
}

TEST(Reshape, Errors) {
  auto a = iota({2, 3, 4});
  CUFORGE_EXPECT_THROW_WITH(logic_error, "one unknown dimension", (void)a.reshape({-1, -1}));
  CUFORGE_EXPECT_THROW_WITH(logic_error, "cannot reshape array of size 24", (void)a.reshape({5, -1}));
  CUFORGE_EXPECT_THROW_WITH(logic_error, "cannot reshape array of size 24", (void)a.reshape({5, 5}));
  CUFORGE_EXPECT_THROW_WITH(logic_error, "cannot reshape array of size 24", (void)a.reshape({0, -1}));
  CUFORGE_EXPECT_THROW_WITH(logic_error, "negative dimensions", (void)a.reshape({-2, -12}));
  EXPECT_THROW((void)a.reshape({24}, 'K'), logic_error);
}

TEST(Reshape, NonContiguousIsACopy) {
  auto a = iota({2, 3, 4});
  auto t = a.transpose();  // (4, 3, 2)
  auto r = t.reshape({4, 6});
  EXPECT_NE(r.allocation(), a.allocation()) << "a non-contiguous reshape must copy";
  EXPECT_TRUE(r.is_c_contiguous());
  std::vector<std::int32_t> want;
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 2; ++i) want.push_back(i * 12 + j * 4 + k);
  EXPECT_EQ(values(r), want);
  // The copy is independent of the original.
  std::int32_t minus = -1;
  r.fill(&minus, {});
  EXPECT_EQ(values(a)[5], 5);
  // Stepped views copy too.
  auto s = at(iota({10}), {S(std::nullopt, std::nullopt, 2)});
  auto sr = s.reshape({5, 1});
  EXPECT_NE(sr.allocation(), s.allocation());
  EXPECT_EQ(values(sr), (std::vector<std::int32_t>{0, 2, 4, 6, 8}));
}

TEST(Reshape, FortranOrder) {
  // A C array reshaped in F order reads and writes its elements in F order.
  auto a = iota({2, 3});  // [[0,1,2],[3,4,5]]: F order 0,3,1,4,2,5
  auto f = a.reshape({3, 2}, 'F');
  EXPECT_EQ(f.shape(), (extents{3, 2}));
  // f[i, j] = elementF[i + 3 j]: [[0,4],[3,2],[1,5]]
  EXPECT_EQ(values(f), (std::vector<std::int32_t>{0, 4, 3, 2, 1, 5}));
  auto ff = iota({2, 3}, 'F');  // F-contiguous: a view
  auto fv = ff.reshape({6}, 'F');
  EXPECT_EQ(fv.allocation(), ff.allocation());
  EXPECT_EQ(values(fv), (std::vector<std::int32_t>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(ff.reshape({3, 2}, 'A').allocation(), ff.allocation()) << "'A' keeps an F-contiguous array's order";
}

TEST(Transpose, PermutesAxes) {
  auto a = iota({2, 3, 4});
  auto t = a.transpose();
  EXPECT_EQ(t.shape(), (extents{4, 3, 2}));
  EXPECT_EQ(t.strides(), (extents{4, 16, 48}));
  EXPECT_EQ(t.allocation(), a.allocation());
  EXPECT_TRUE(t.is_f_contiguous());
  auto p = a.transpose({1, 0, 2});
  EXPECT_EQ(p.shape(), (extents{3, 2, 4}));
  std::vector<std::int32_t> want;
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 4; ++k) want.push_back(i * 12 + j * 4 + k);
  EXPECT_EQ(values(p), want);
  auto n = a.transpose({-1, 0, 1});
  EXPECT_EQ(n.shape(), (extents{4, 2, 3}));
  EXPECT_EQ(values(n), expected_from_layout(n));
  EXPECT_EQ(values(a.transpose().transpose()), values(a));
  EXPECT_THROW((void)a.transpose({0, 0, 1}), logic_error);
  EXPECT_THROW((void)a.transpose({0, 1}), logic_error);
  EXPECT_THROW((void)a.transpose({0, 1, 3}), logic_error);
  EXPECT_THROW((void)a.transpose({0, 1, -4}), logic_error);
  auto scalar = at(a, {I(0), I(0), I(0)});
  EXPECT_EQ(scalar.transpose().ndim(), 0u);
}

TEST(Ravel, ViewWhenContiguousElseCopy) {
  auto a = iota({3, 4});
  auto r = a.ravel();
  EXPECT_EQ(r.shape(), (extents{12}));
  EXPECT_EQ(r.allocation(), a.allocation());
  auto rf = a.ravel('F');
  EXPECT_NE(rf.allocation(), a.allocation());
  EXPECT_EQ(values(rf), (std::vector<std::int32_t>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));
  auto t = a.transpose();
  EXPECT_EQ(t.ravel('F').allocation(), a.allocation()) << "the transpose of a C array is F-contiguous";
  auto tc = t.ravel();
  EXPECT_NE(tc.allocation(), a.allocation());
  EXPECT_EQ(values(tc), (std::vector<std::int32_t>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));
  auto stepped = at(a, {S(), S(std::nullopt, std::nullopt, -2)});
  EXPECT_EQ(values(stepped.ravel()), (std::vector<std::int32_t>{3, 1, 7, 5, 11, 9}));
}

TEST(Split, ConsecutiveViews) {
  auto a = iota({10});
  auto parts = a.split(3);
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_EQ(values(parts[0]), (std::vector<std::int32_t>{0, 1, 2}));
  EXPECT_EQ(values(parts[1]), (std::vector<std::int32_t>{3, 4, 5}));
  EXPECT_EQ(values(parts[2]), (std::vector<std::int32_t>{6, 7, 8}));
  EXPECT_EQ(values(parts[3]), (std::vector<std::int32_t>{9}));
  for (auto& p : parts) EXPECT_EQ(p.allocation(), a.allocation());
  EXPECT_EQ(a.split(10).size(), 1u);
  EXPECT_EQ(a.split(100).size(), 1u);
  auto stepped = at(a, {S(std::nullopt, std::nullopt, -3)});  // 9, 6, 3, 0
  auto sp = stepped.split(3);
  ASSERT_EQ(sp.size(), 2u);
  EXPECT_EQ(values(sp[0]), (std::vector<std::int32_t>{9, 6, 3}));
  EXPECT_EQ(values(sp[1]), (std::vector<std::int32_t>{0}));
  EXPECT_THROW((void)a.split(0), logic_error);
  EXPECT_THROW((void)a.split(-2), logic_error);
  EXPECT_THROW((void)iota({2, 2}).split(1), logic_error);
}

TEST(Bind, ChangesTheDefaultStreamOnly) {
  stream s;
  auto a = iota({5});
  auto b = a.bind(s);
  EXPECT_EQ(b.stream(), s.view());
  EXPECT_TRUE(a.stream().is_legacy_default());
  EXPECT_EQ(b.allocation(), a.allocation());
  EXPECT_EQ(b.shape(), a.shape());
  EXPECT_EQ(b.data(), a.data());
  auto c = b.copy();
  EXPECT_EQ(c.stream(), s.view()) << "a copy keeps the stream binding";
  s.synchronize();
  EXPECT_EQ(values(c), values(a));
}

TEST(Copy, MakesContiguousIndependentArrays) {
  auto a = iota({3, 4});
  auto t = a.transpose();
  auto c = t.copy();
  EXPECT_TRUE(c.is_c_contiguous());
  EXPECT_NE(c.allocation(), a.allocation());
  EXPECT_EQ(values(c), values(t));
  auto f = a.copy('F');
  EXPECT_TRUE(f.is_f_contiguous());
  EXPECT_FALSE(f.is_c_contiguous());
  EXPECT_EQ(values(f), values(a));
  EXPECT_TRUE(t.copy('A').is_f_contiguous()) << "'A' keeps F for F-contiguous arrays";
  EXPECT_TRUE(t.copy('K').is_f_contiguous());
  EXPECT_TRUE(a.copy('A').is_c_contiguous());
  stream s;
  auto on_s = a.copy('C', s.view());
  s.synchronize();
  EXPECT_EQ(values(on_s), values(a));
  std::int32_t seven = 7;
  c.fill(&seven, {});
  EXPECT_EQ(values(t)[1], 4) << "the copy is independent";
}

}  // namespace
