// __cuda_array_interface__ at the C++ level (interop/cuda_array_interface.hpp):
// import of every layout and dtype over memory the runtime knows (a device
// array's allocation stands in for the producer's), each validation error
// with the field it names and its exception type (logic_error and
// type_error become ValueError and TypeError in Python), extents checked
// against the allocation the backend knows (negative strides included),
// read-only, the release that runs exactly once (when the last view goes
// and the deferred frees flush, or at once when the import fails), and
// export: refused on the cpu backend, strides only when not C-contiguous.

#include <cuforge/devicearray/device_ndarray.hpp>
#include <cuforge/interop/cuda_array_interface.hpp>
#include <cuforge/memory/allocation.hpp>
#include <cuforge/memory/current_resource.hpp>
#include <cuforge/memory/deallocation.hpp>
#include <cuforge/memory/memory_resource.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/error.hpp>
#include <cuforge/runtime/memory_ops.hpp>
#include <cuforge/runtime/stream.hpp>

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "interop/interop_support.hpp"
#include "test_support.hpp"

namespace {

using namespace cuforge;
using cuforge::testing::all_dtypes;
using cuforge::testing::expect_same_elements;
using cuforge::testing::expect_throw_exact;
using cuforge::testing::pending_frees;
using interop::array_interface;
using opt = std::optional<std::int64_t>;

index_item I(std::int64_t v) { return index_item{.k = index_item::kind::integer, .value = v}; }
index_item S(opt start = std::nullopt, opt stop = std::nullopt, opt step = std::nullopt) {
  return index_item{.k = index_item::kind::slice, .start = start, .stop = stop, .step = step};
}

device_ndarray view(const device_ndarray& a, std::vector<index_item> index) { return a.view(index); }

std::uintptr_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

/// Counts the calls of the releases it hands out; they may outlive the test
/// body (a flush in TearDown), so the count is shared.
class release_counter {
 public:
  std::function<void()> release() const {
    return [n = n_] { ++*n; };
  }
  int count() const { return n_->load(); }

 private:
  std::shared_ptr<std::atomic<int>> n_ = std::make_shared<std::atomic<int>>(0);
};

// --- import ----------------------------------------------------------------------

class CaiImport : public pending_frees {
 protected:
  void SetUp() override {
    pending_frees::SetUp();
    mem_ = device_ndarray::empty({64}, dtypes::int32);
  }

  /// A 4x4 int32 interface over the producer's memory.
  array_interface base() const {
    array_interface ai;
    ai.data = address(mem_.data());
    ai.shape = {4, 4};
    ai.typestr = "<i4";
    return ai;
  }
  /// The view of the producer's memory an interface should import as.
  device_ndarray expected(std::int64_t offset, extents shape, extents strides, dtype t = dtypes::int32) const {
    return device_ndarray(mem_.allocation(), offset, std::move(shape), std::move(strides), t);
  }

  /// Expects the import of base() changed by `change` to throw exactly E
  /// naming `text`, having released the producer once by then.
  template <class E>
  void expect_refused(const char* what, const std::function<void(array_interface&)>& change,
                      const std::string& text) {
    auto ai = base();
    change(ai);
    release_counter r;
    expect_throw_exact<E>([&] { (void)interop::import_interface(ai, r.release()); }, text, what);
    EXPECT_EQ(r.count(), 1) << what << ": a failed import lets go of the producer at once";
    flush();
    EXPECT_EQ(r.count(), 1) << what << ": and only once";
  }

  device_ndarray mem_;
};

TEST_F(CaiImport, ViewsTheMemoryWithoutACopy) {
  release_counter r;
  auto a = interop::import_interface(base(), r.release());
  EXPECT_EQ(a.data(), mem_.data());
  EXPECT_EQ(a.shape(), (extents{4, 4}));
  EXPECT_EQ(a.strides(), (extents{16, 4}));
  EXPECT_EQ(a.type(), dtypes::int32);
  EXPECT_FALSE(a.read_only());
  EXPECT_EQ(a.device(), mem_.device());
  EXPECT_EQ(a.allocation()->kind(), mem::kind_of(mem_.data()));
  expect_same_elements(a, expected(0, {4, 4}, {16, 4}));
  EXPECT_EQ(r.count(), 0);
}

TEST_F(CaiImport, ByteStridesIncludingNegativeOnes) {
  auto ai = base();
  ai.data = address(static_cast<char*>(mem_.data()) + 12);  // item 3, read backwards along rows
  ai.shape = {2, 4};
  ai.strides = extents{32, -4};
  auto a = interop::import_interface(ai, {});
  EXPECT_EQ(a.data(), static_cast<char*>(mem_.data()) + 12);
  EXPECT_EQ(a.strides(), (extents{32, -4}));
  EXPECT_EQ(a.extent_bytes(), (std::pair<std::int64_t, std::int64_t>{-12, 36}));
  expect_same_elements(a, expected(12, {2, 4}, {32, -4}));

  ai = base();
  ai.strides = extents{4, 16};  // F order
  auto f = interop::import_interface(ai, {});
  EXPECT_TRUE(f.is_f_contiguous());
  expect_same_elements(f, expected(0, {4, 4}, {4, 16}));
}

TEST_F(CaiImport, ZeroStridesZeroDimAndEmpty) {
  auto ai = base();
  ai.shape = {3, 4};
  ai.strides = extents{0, 4};
  expect_same_elements(interop::import_interface(ai, {}), expected(0, {3, 4}, {0, 4}));

  ai = base();
  ai.data += 8;
  ai.shape = {};
  auto s = interop::import_interface(ai, {});
  EXPECT_EQ(s.ndim(), 0u);
  EXPECT_EQ(s.size(), 1);
  expect_same_elements(s, expected(8, {}, {}));

  ai = base();
  ai.data = 0;  // a null pointer is fine with no elements
  ai.shape = {0, 4};
  auto e = interop::import_interface(ai, {});
  EXPECT_EQ(e.size(), 0);
  EXPECT_EQ(e.shape(), (extents{0, 4}));
}

TEST_F(CaiImport, EveryDtype) {
  for (dtype t : all_dtypes()) {
    auto ai = base();
    ai.typestr = t.typestr();
    ai.shape = {2};
    auto a = interop::import_interface(ai, {});
    EXPECT_EQ(a.type(), t) << ai.typestr;
    EXPECT_EQ(a.strides(), (extents{static_cast<std::int64_t>(t.itemsize)})) << ai.typestr;
    expect_same_elements(a, expected(0, {2}, {static_cast<std::int64_t>(t.itemsize)}, t));
  }
}

TEST_F(CaiImport, VersionsZeroToThree) {
  for (int v = 0; v <= 3; ++v) {
    auto ai = base();
    ai.version = v;
    EXPECT_EQ(interop::import_interface(ai, {}).size(), 16) << "version " << v;
  }
  for (int v : {-1, 4, 100})
    expect_refused<logic_error>("version", [v](array_interface& ai) { ai.version = v; },
                                "version " + std::to_string(v));
}

TEST_F(CaiImport, MasksAreRefused) {
  expect_refused<logic_error>("mask", [](array_interface& ai) { ai.has_mask = true; }, "'mask'");
}

TEST_F(CaiImport, BadTypestrsAreTypeErrorsNamingThem) {
  for (const char* t : {">i4", ">f8", "<U8", "|S4", "|O", "|V16", "<M4", "<m8[7s]", "<f3", "<i3", "|b2", "<c4", "i4",
                        "", "<q8", "<i99", "~i4"})
    expect_throw_exact<type_error>([&] {
      auto ai = base();
      ai.typestr = t;
      (void)interop::import_interface(ai, {});
    }, std::string("'") + t + "'", t);
  expect_refused<type_error>("typestr", [](array_interface& ai) { ai.typestr = ">i4"; }, "big-endian");
  expect_refused<type_error>("typestr", [](array_interface& ai) { ai.typestr = "<U8"; }, "'typestr'");
}

TEST_F(CaiImport, StridesMustMatchTheShape) {
  expect_refused<logic_error>(
      "strides count", [](array_interface& ai) { ai.strides = extents{16}; }, "'strides' has 1 entries");
  expect_refused<logic_error>(
      "strides count", [](array_interface& ai) { ai.strides = extents{16, 4, 4}; }, "'shape' has 2");
}

TEST_F(CaiImport, StridesMustBeWholeItems) {
  expect_refused<logic_error>("odd stride", [](array_interface& ai) { ai.strides = extents{16, 2}; }, "stride 2");
  expect_refused<logic_error>(
      "odd negative stride", [](array_interface& ai) { ai.strides = extents{-18, 4}; }, "stride -18");
}

TEST_F(CaiImport, ShapeMustBeNonNegative) {
  expect_refused<logic_error>("negative shape", [](array_interface& ai) { ai.shape = {4, -1}; }, "shape (4, -1)");
  expect_refused<logic_error>("65 dimensions", [](array_interface& ai) { ai.shape = extents(65, 1); },
                              "65 dimensions");
  expect_refused<logic_error>(
      "element count", [](array_interface& ai) { ai.shape = {std::int64_t{1} << 40, std::int64_t{1} << 40}; },
      "shape");
}

TEST_F(CaiImport, NullPointerWithElementsIsRefused) {
  expect_refused<logic_error>("null data", [](array_interface& ai) { ai.data = 0; }, "data pointer is null");
}

TEST_F(CaiImport, ExtentMustStayInsideTheAllocation) {
  auto range = mem::range_of(mem_.data());
  if (!range) GTEST_SKIP() << "the backend does not know the allocation's range";
  auto start = address(range->first);
  auto items = static_cast<std::int64_t>(range->second / 4);
  auto end = start + range->second;
  auto fits = [&](std::uintptr_t data, extents shape, std::optional<extents> strides) {
    auto ai = base();
    ai.data = data;
    ai.shape = std::move(shape);
    ai.strides = std::move(strides);
    release_counter r;
    { EXPECT_NO_THROW((void)interop::import_interface(ai, r.release())); }
    flush();
    EXPECT_EQ(r.count(), 1);
  };
  fits(start, {items}, std::nullopt);                        // all of it
  fits(end - 4, {items}, extents{-4});                       // all of it, backwards
  fits(start + 4, {2}, extents{-4});                         // back to its first byte
  fits(start + 16, {2, 4}, extents{-16, 4});                 // rows going back
  auto outside = [&](const char* what, std::uintptr_t data, extents shape, std::optional<extents> strides) {
    expect_refused<logic_error>(what, [&](array_interface& ai) {
      ai.data = data;
      ai.shape = shape;
      ai.strides = strides;
    }, "outside its allocation");
  };
  outside("one item too many", start, {items + 1}, std::nullopt);
  outside("one item past the end", start + 4, {items}, std::nullopt);
  outside("a stride past the end", start, {2, 2}, extents{static_cast<std::int64_t>(range->second), 4});
  outside("a negative stride before the start", start, {2}, extents{-4});
  outside("a negative row stride before the start", start + 16, {2, 4}, extents{-32, 4});
  outside("a negative stride from the end", end - 4, {items + 1}, extents{-4});
}

TEST_F(CaiImport, OverflowingExtentsAreRefused) {
  expect_refused<logic_error>(
      "stride times shape", [](array_interface& ai) { ai.strides = extents{std::int64_t{1} << 62, 4}; },
      "overflows");
  expect_refused<logic_error>("sum of reaches", [](array_interface& ai) {
    ai.shape = {2, 2};
    ai.strides = extents{std::int64_t{1} << 62, std::int64_t{1} << 62};
  }, "overflows");
  expect_refused<logic_error>("negative sum of reaches", [](array_interface& ai) {
    ai.shape = {2, 2, 2};
    ai.strides = extents{-(std::int64_t{1} << 62), -(std::int64_t{1} << 62), -(std::int64_t{1} << 62)};
  }, "overflows");
}

TEST_F(CaiImport, ReadOnlyPropagates) {
  auto ai = base();
  ai.read_only = true;
  auto a = interop::import_interface(ai, {});
  EXPECT_TRUE(a.read_only());
  EXPECT_TRUE(view(a, {I(1)}).read_only());
  std::int32_t zero = 0;
  EXPECT_THROW(a.fill(&zero, {}), logic_error);
  EXPECT_THROW(view(a, {S(1, 2)}).fill(&zero, {}), logic_error);
  ai.read_only = false;
  auto w = interop::import_interface(ai, {});
  EXPECT_FALSE(w.read_only());
  w.fill(&zero, {});
}

TEST_F(CaiImport, ReleaseRunsOnceWhenTheLastViewGoes) {
  release_counter r;
  auto a = interop::import_interface(base(), r.release());
  auto rows = view(a, {S(1, 3)});
  auto row = view(rows, {I(0)});                  // a view of a view
  auto turned = a.reshape({2, 8}).transpose();    // views of a reshape
  ASSERT_EQ(a.reshape({16}).data(), a.data()) << "the reshape should be a view";
  a = {};
  rows = {};
  flush();
  EXPECT_EQ(r.count(), 0) << "views are alive";
  turned = {};
  flush();
  EXPECT_EQ(r.count(), 0) << "one view is alive";
  row = {};
  EXPECT_EQ(r.count(), 0) << "the release waits for the deferred frees";
  EXPECT_EQ(q_.pending_count(), 1u);
  flush();
  EXPECT_EQ(r.count(), 1);
  flush();
  EXPECT_EQ(r.count(), 1);
}

TEST_F(CaiImport, PinnedMemoryKeepsItsKind) {
  auto pinned = device_ndarray(memory::allocation::make(memory::pinned_resource(), 64), 0, {16}, {4}, dtypes::int32);
  auto ai = base();
  ai.data = address(pinned.data());
  ai.shape = {16};
  auto a = interop::import_interface(ai, {});
  EXPECT_EQ(a.allocation()->kind(), memory_kind::pinned);
  EXPECT_EQ(a.allocation()->host_data(), pinned.data());
  expect_same_elements(a, pinned);
  if (auto range = mem::range_of(pinned.data())) {
    ai.shape = {static_cast<std::int64_t>(range->second / 4) + 1};
    expect_throw_exact<logic_error>([&] { (void)interop::import_interface(ai, {}); }, "outside its allocation");
  }
}

TEST_F(CaiImport, HostMemoryIsDeviceMemoryOnlyOnTheCpuBackend) {
  std::vector<std::int32_t> host(16, 0);
  auto ai = base();
  ai.data = address(host.data());
  ai.shape = {2, 8};
  if (active_backend() == backend_kind::cpu) {
    auto a = interop::import_interface(ai, {});
    EXPECT_EQ(a.allocation()->kind(), memory_kind::pageable);
    std::int32_t v = 9;
    mem::copy_sync(cuforge::testing::element_ptr(a, {1, 3}), &v, 4, stream_view{});
    EXPECT_EQ(host[11], 9);
  } else {
    release_counter r;
    expect_throw_exact<logic_error>([&] { (void)interop::import_interface(ai, r.release()); }, "host pointer");
    EXPECT_EQ(r.count(), 1);
  }
}

TEST_F(CaiImport, PointersToNoMappedMemoryAreRefused) {
  // Unknown to the runtime and not mapped in the process: the cpu backend
  // would read it directly at launch, the cuda backend takes it for a host
  // pointer. Either way a logic_error at import, and the producer let go.
  long page = sysconf(_SC_PAGESIZE);
  void* gone = mmap(nullptr, static_cast<std::size_t>(2 * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                    -1, 0);
  ASSERT_NE(gone, MAP_FAILED);
  ASSERT_EQ(munmap(static_cast<char*>(gone) + page, static_cast<std::size_t>(page)), 0);  // keep the first page
  const char* why = active_backend() == backend_kind::cpu ? "not in memory this process has mapped" : "host pointer";
  auto refused = [&](std::uintptr_t data, extents shape) {
    auto ai = base();
    ai.data = data;
    ai.shape = std::move(shape);
    release_counter r;
    expect_throw_exact<logic_error>([&] { (void)interop::import_interface(ai, r.release()); }, why);
    EXPECT_EQ(r.count(), 1);
  };
  refused(4096, {4});                                                     // the zero page's neighbour
  refused(address(static_cast<char*>(gone) + page), {4});                 // unmapped
  refused(address(static_cast<char*>(gone) + page - 8), {4});             // runs off the mapped page
  if (active_backend() == backend_kind::cpu) {
    auto ai = base();
    ai.data = address(static_cast<char*>(gone) + page - 8);
    ai.shape = {2};  // the last two items of the mapped page: fine
    EXPECT_NO_THROW((void)interop::import_interface(ai, {}));
    flush();
  }
  munmap(gone, static_cast<std::size_t>(page));
}

// --- export ----------------------------------------------------------------------

TEST(CaiExport, RefusedOnTheCpuBackend) {
  CUFORGE_REQUIRE_CPU("the cuda backend exports the interface");
  auto a = device_ndarray::empty({4}, dtypes::float32);
  expect_throw_exact<logic_error>([&] { (void)interop::export_interface(a, std::nullopt); }, "cpu backend");
  expect_throw_exact<logic_error>([&] { (void)interop::export_interface(a, std::uintptr_t{1}); }, "cpu backend");
}

TEST(CaiExport, CudaCContiguousHasNoStrides) {
  CUFORGE_REQUIRE_CUDA();
  auto a = device_ndarray::empty({3, 4}, dtypes::float32);
  auto ai = interop::export_interface(a, std::nullopt);
  EXPECT_EQ(ai.data, address(a.data()));
  EXPECT_EQ(ai.shape, (extents{3, 4}));
  EXPECT_FALSE(ai.strides.has_value());
  EXPECT_EQ(ai.typestr, "<f4");
  EXPECT_EQ(ai.version, 3);
  EXPECT_FALSE(ai.read_only);
  EXPECT_FALSE(ai.has_mask);
  EXPECT_FALSE(ai.stream.has_value());
  EXPECT_EQ(interop::export_interface(a, std::uintptr_t{2}).stream, std::optional<std::uintptr_t>{2});
  EXPECT_FALSE(interop::export_interface(view(a, {I(1)}), std::nullopt).strides.has_value()) << "a row";
  EXPECT_FALSE(interop::export_interface(view(a, {I(1), I(2)}), std::nullopt).strides.has_value()) << "0-d";
  EXPECT_FALSE(interop::export_interface(device_ndarray::empty({0, 3}, dtypes::int8), std::nullopt).strides.has_value())
      << "empty";
  EXPECT_TRUE(interop::export_interface(a.as_read_only(), std::nullopt).read_only);
}

TEST(CaiExport, CudaOtherLayoutsHaveByteStrides) {
  CUFORGE_REQUIRE_CUDA();
  auto f = device_ndarray::empty({3, 4}, dtypes::float64, 'F');
  EXPECT_EQ(interop::export_interface(f, std::nullopt).strides, std::optional<extents>(extents{8, 24}));
  auto c = device_ndarray::empty({6, 8}, dtypes::int16);
  auto stepped = view(c, {S({}, {}, 2), S(1, {}, 3)});
  EXPECT_EQ(interop::export_interface(stepped, std::nullopt).strides, std::optional<extents>(extents{32, 6}));
  auto reversed = view(c, {S({}, {}, -1)});
  auto ai = interop::export_interface(reversed, std::nullopt);
  EXPECT_EQ(ai.strides, std::optional<extents>(extents{-16, 2}));
  EXPECT_EQ(ai.data, address(reversed.data()));
  EXPECT_EQ(ai.typestr, "<i2");
}

TEST(CaiExport, CudaRoundTripSharesMemory) {
  CUFORGE_REQUIRE_CUDA();
  auto c = device_ndarray::empty({6, 8}, dtypes::complex64);
  for (const auto& a : {c, view(c, {S({}, {}, -2), S(1, {}, 3)}), c.transpose(), view(c, {I(4), I(5)})}) {
    auto b = interop::import_interface(interop::export_interface(a, std::nullopt), {});
    EXPECT_EQ(b.data(), a.data());
    EXPECT_EQ(b.strides(), a.strides());
    EXPECT_EQ(b.type(), a.type());
    expect_same_elements(a, b);
  }
}

}  // namespace
