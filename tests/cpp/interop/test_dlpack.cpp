// DLPack at the C++ level (interop/dlpack.hpp): dtypes both ways and the
// refusals; the DLPack device of arrays of every memory kind; export of
// every dtype and layout (C, F, stepped, reversed, offset, permuted, new
// axes, zero strides, 0-d, empty) and import of the result, versioned and
// legacy, sharing memory; the read-only and copied flags; hand-made
// producers' tensors (byte offsets, absent strides, negative strides) and
// their deleters, which run exactly once: when the last view goes and the
// deferred frees flush, or at once when an import fails; and the references
// our own exports hold on an array's memory.

#include <cuforge/devicearray/device_ndarray.hpp>
#include <cuforge/interop/dlpack.hpp>
#include <cuforge/memory/allocation.hpp>
#include <cuforge/memory/current_resource.hpp>
#include <cuforge/memory/deallocation.hpp>
#include <cuforge/memory/memory_resource.hpp>
#include <cuforge/memory/statistics_resource_adaptor.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/error.hpp>
#include <cuforge/runtime/memory_ops.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "interop/interop_support.hpp"
#include "test_support.hpp"

namespace {

using namespace cuforge;
using namespace cuforge::dlpack;
using cuforge::testing::all_dtypes;
using cuforge::testing::expect_same_elements;
using cuforge::testing::expect_throw_exact;
using cuforge::testing::pending_frees;
using opt = std::optional<std::int64_t>;

index_item I(std::int64_t v) { return index_item{.k = index_item::kind::integer, .value = v}; }
index_item S(opt start = std::nullopt, opt stop = std::nullopt, opt step = std::nullopt) {
  return index_item{.k = index_item::kind::slice, .start = start, .stop = stop, .step = step};
}
index_item NA() { return index_item{.k = index_item::kind::newaxis}; }

device_ndarray view(const device_ndarray& a, std::vector<index_item> index) { return a.view(index); }

bool operator==(DLDevice a, DLDevice b) { return a.device_type == b.device_type && a.device_id == b.device_id; }
bool operator==(DLDataType a, DLDataType b) { return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes; }

std::string str(DLDevice d) {
  return "(" + std::to_string(static_cast<int>(d.device_type)) + ", " + std::to_string(d.device_id) + ")";
}

/// Sets the current resource for the scope, and restores the default.
struct scoped_resource {
  explicit scoped_resource(std::shared_ptr<memory::memory_resource> mr) { memory::set_current_resource(std::move(mr)); }
  ~scoped_resource() { memory::set_current_resource(nullptr); }
  scoped_resource(const scoped_resource&) = delete;
  scoped_resource& operator=(const scoped_resource&) = delete;
};

device_ndarray import_any(DLManagedTensorVersioned* t, bool allow_host = false) {
  return interop::import_versioned(t, allow_host);
}
device_ndarray import_any(DLManagedTensor* t, bool allow_host = false) { return interop::import_legacy(t, allow_host); }

// --- dtypes ----------------------------------------------------------------------

struct dtype_pair {
  dtype ours;
  DLDataType theirs;
};

const std::vector<dtype_pair>& dtype_table() {
  static const std::vector<dtype_pair> v = {
      {dtypes::bool_, {kDLBool, 8, 1}},         {dtypes::int8, {kDLInt, 8, 1}},
      {dtypes::int16, {kDLInt, 16, 1}},         {dtypes::int32, {kDLInt, 32, 1}},
      {dtypes::int64, {kDLInt, 64, 1}},         {dtypes::uint8, {kDLUInt, 8, 1}},
      {dtypes::uint16, {kDLUInt, 16, 1}},       {dtypes::uint32, {kDLUInt, 32, 1}},
      {dtypes::uint64, {kDLUInt, 64, 1}},       {dtypes::float16, {kDLFloat, 16, 1}},
      {dtypes::float32, {kDLFloat, 32, 1}},     {dtypes::float64, {kDLFloat, 64, 1}},
      {dtypes::complex64, {kDLComplex, 64, 1}}, {dtypes::complex128, {kDLComplex, 128, 1}},
  };
  return v;
}

TEST(DlpackDtype, EveryDtypeMapsBothWays) {
  ASSERT_EQ(dtype_table().size(), all_dtypes().size());
  for (auto [ours, theirs] : dtype_table()) {
    DLDataType t = interop::to_dlpack_dtype(ours);
    EXPECT_TRUE(t == theirs) << ours.name() << " -> (" << int(t.code) << ", " << int(t.bits) << ", " << t.lanes << ")";
    EXPECT_EQ(interop::from_dlpack_dtype(theirs), ours) << ours.name();
    EXPECT_EQ(interop::from_dlpack_dtype(interop::to_dlpack_dtype(ours)), ours) << ours.name();
  }
}

TEST(DlpackDtype, RefusalsNameTheType) {
  struct refusal {
    DLDataType t;
    const char* text;
  };
  const std::vector<refusal> refusals = {
      {{kDLBfloat, 16, 1}, "bfloat16"},
      {{kDLFloat, 32, 4}, "4 lanes"},       // a float4 vector
      {{kDLInt, 8, 16}, "vector"},          // an int8x16 vector
      {{kDLFloat, 32, 0}, "0 lanes"},
      {{kDLOpaqueHandle, 64, 1}, "opaque"},
      {{kDLInt, 128, 1}, "128 bits"},
      {{kDLInt, 4, 1}, "4 bits"},
      {{kDLUInt, 1, 1}, "1 bits"},
      {{kDLFloat, 8, 1}, "8 bits"},
      {{kDLFloat, 128, 1}, "128 bits"},
      {{kDLComplex, 32, 1}, "32 bits"},
      {{kDLBool, 1, 1}, "booleans"},
      {{kDLBool, 32, 1}, "booleans"},
  };
  for (auto [t, text] : refusals)
    expect_throw_exact<type_error>([&] { (void)interop::from_dlpack_dtype(t); }, text,
                                   ("code " + std::to_string(t.code) + " bits " + std::to_string(t.bits)).c_str());
  // The 8-, 6- and 4-bit float formats of DLPack 1.1: kDLFloat8_e3m4 (7) to
  // kDLFloat4_e2m1fn (17).
  for (std::uint8_t code = 7; code <= 17; ++code) {
    std::uint8_t bits = code <= 14 ? 8 : code <= 16 ? 6 : 4;
    expect_throw_exact<type_error>([&] { (void)interop::from_dlpack_dtype({code, bits, 1}); },
                                   "code " + std::to_string(code), "a small float format");
    expect_throw_exact<type_error>([&] { (void)interop::from_dlpack_dtype({code, bits, 1}); }, "float",
                                   "a small float format");
  }
}

// --- devices ---------------------------------------------------------------------

device_ndarray over(std::shared_ptr<memory::allocation> alloc, std::int64_t n = 16) {
  return device_ndarray(std::move(alloc), 0, {n}, {4}, dtypes::int32);
}

TEST(DlpackDevice, EverythingIsKDLCPUOnTheCpuBackend) {
  CUFORGE_REQUIRE_CPU("its device memory is host memory");
  const DLDevice cpu{kDLCPU, 0};
  EXPECT_TRUE(interop::dlpack_device_of(device_ndarray::empty({4}, dtypes::float32)) == cpu);
  EXPECT_TRUE(interop::dlpack_device_of(over(memory::allocation::make(memory::pinned_resource(), 64))) == cpu);
  EXPECT_TRUE(interop::dlpack_device_of(over(memory::allocation::make(memory::mapped_resource(), 64))) == cpu);
  EXPECT_TRUE(interop::dlpack_device_of(over(memory::allocation::make(memory::managed_resource(), 64))) == cpu);
  EXPECT_TRUE(interop::dlpack_device_of(device_ndarray::empty({0}, dtypes::float32)) == cpu);
}

TEST(DlpackDevice, CudaDeviceMemoryIsKDLCUDA) {
  CUFORGE_REQUIRE_CUDA();
  auto a = device_ndarray::empty({4}, dtypes::float32);
  auto d = interop::dlpack_device_of(a);
  EXPECT_TRUE(d == (DLDevice{kDLCUDA, device::current().ordinal()})) << str(d);
}

TEST(DlpackDevice, CudaPinnedMappedAndRegisteredAreKDLCUDAHost) {
  CUFORGE_REQUIRE_CUDA();
  const DLDevice host{kDLCUDAHost, 0};
  auto pinned = interop::dlpack_device_of(over(memory::allocation::make(memory::pinned_resource(), 64)));
  EXPECT_TRUE(pinned == host) << str(pinned);
  auto mapped = interop::dlpack_device_of(over(memory::allocation::make(memory::mapped_resource(), 64)));
  EXPECT_TRUE(mapped == host) << str(mapped);
  void* block = std::aligned_alloc(4096, 4096);
  ASSERT_NE(block, nullptr);
  {
    auto registered = interop::dlpack_device_of(over(memory::allocation::register_host(block, 4096, false)));
    EXPECT_TRUE(registered == host) << str(registered);
  }
  std::free(block);
}

TEST(DlpackDevice, CudaManagedIsKDLCUDAManaged) {
  CUFORGE_REQUIRE_CUDA();
  auto d = interop::dlpack_device_of(over(memory::allocation::make(memory::managed_resource(), 64)));
  EXPECT_TRUE(d == (DLDevice{kDLCUDAManaged, device::current().ordinal()})) << str(d);
}

TEST(DlpackDevice, CudaSecondDeviceKeepsItsOrdinal) {
  CUFORGE_REQUIRE_CUDA();
  CUFORGE_REQUIRE_DEVICES(2);
  struct back_to_0 {
    ~back_to_0() { device::get(0).make_current(); }
  } guard;
  device::get(1).make_current();
  auto a = device_ndarray::empty({4}, dtypes::float32);
  ASSERT_EQ(a.device(), 1);
  auto d = interop::dlpack_device_of(a);
  EXPECT_TRUE(d == (DLDevice{kDLCUDA, 1})) << str(d);
  device::get(0).make_current();
  auto b = interop::import_versioned(interop::export_versioned(a));
  EXPECT_EQ(b.device(), 1);
  EXPECT_EQ(b.data(), a.data());
}

// --- round trips of our own arrays -----------------------------------------------

struct layout {
  const char* name;
  std::function<device_ndarray(dtype)> make;
};

const std::vector<layout>& layouts() {
  static const std::vector<layout> v = {
      {"C", [](dtype t) { return device_ndarray::empty({3, 4}, t, 'C'); }},
      {"F", [](dtype t) { return device_ndarray::empty({3, 4}, t, 'F'); }},
      {"Stepped", [](dtype t) { return view(device_ndarray::empty({6, 8}, t), {S({}, {}, 2), S(1, {}, 3)}); }},
      {"Reversed", [](dtype t) { return view(device_ndarray::empty({3, 4}, t), {S({}, {}, -1), S({}, {}, -2)}); }},
      {"Offset", [](dtype t) { return view(device_ndarray::empty({4, 5}, t), {S(1), S(2)}); }},
      {"Permuted", [](dtype t) { return device_ndarray::empty({2, 3, 4}, t).transpose({2, 0, 1}); }},
      {"NewAxes", [](dtype t) { return view(device_ndarray::empty({3}, t), {NA(), S(), NA()}); }},
      {"ZeroStride",
       [](dtype t) {
         auto row = device_ndarray::empty({4}, t);
         return device_ndarray(row.allocation(), 0, {3, 4}, {0, static_cast<std::int64_t>(t.itemsize)}, t);
       }},
      {"ZeroDim", [](dtype t) { return view(device_ndarray::empty({5}, t), {I(3)}); }},
      {"Empty", [](dtype t) { return device_ndarray::empty({0, 3}, t); }},
      {"EmptyView", [](dtype t) { return view(device_ndarray::empty({4, 3}, t), {S(2, 2), S({}, {}, -1)}); }},
  };
  return v;
}

class DlpackRoundTrip : public ::testing::TestWithParam<std::tuple<dtype, layout>> {
 protected:
  device_ndarray make() const { return std::get<1>(GetParam()).make(std::get<0>(GetParam())); }

  /// The tensor describes `a`: its memory, shape, strides in items, dtype
  /// and device, with no byte offset.
  static void expect_describes(const DLTensor& t, const device_ndarray& a) {
    EXPECT_EQ(t.data, a.data());
    EXPECT_EQ(t.byte_offset, 0u);
    EXPECT_TRUE(t.device == interop::dlpack_device_of(a));
    EXPECT_TRUE(t.dtype == interop::to_dlpack_dtype(a.type()));
    ASSERT_EQ(t.ndim, static_cast<std::int32_t>(a.ndim()));
    for (std::size_t i = 0; i < a.ndim(); ++i) {
      EXPECT_EQ(t.shape[i], a.shape()[i]) << "axis " << i;
      ASSERT_NE(t.strides, nullptr);
      EXPECT_EQ(t.strides[i] * static_cast<std::int64_t>(a.itemsize()), a.strides()[i]) << "axis " << i;
    }
  }

  /// `b` is `a` again: the same memory, layout, dtype, device and flag.
  static void expect_same_array(const device_ndarray& a, const device_ndarray& b) {
    EXPECT_EQ(b.data(), a.data());
    EXPECT_EQ(b.shape(), a.shape());
    EXPECT_EQ(b.strides(), a.strides());
    EXPECT_EQ(b.type(), a.type());
    EXPECT_EQ(b.device(), a.device());
    EXPECT_EQ(b.read_only(), a.read_only());
    EXPECT_EQ(b.is_c_contiguous(), a.is_c_contiguous());
    EXPECT_EQ(b.is_f_contiguous(), a.is_f_contiguous());
    expect_same_elements(a, b);
  }
};

TEST_P(DlpackRoundTrip, Versioned) {
  auto a = make();
  auto* t = interop::export_versioned(a);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->version.major, 1u);
  EXPECT_EQ(t->version.minor, 1u);
  EXPECT_EQ(t->flags, 0u);
  ASSERT_NE(t->deleter, nullptr);
  expect_describes(t->dl_tensor, a);
  expect_same_array(a, interop::import_versioned(t));
}

TEST_P(DlpackRoundTrip, Legacy) {
  auto a = make();
  auto* t = interop::export_legacy(a);
  ASSERT_NE(t, nullptr);
  ASSERT_NE(t->deleter, nullptr);
  expect_describes(t->dl_tensor, a);
  expect_same_array(a, interop::import_legacy(t));
}

TEST_P(DlpackRoundTrip, ReadOnlyFollowsTheArray) {
  auto ro = make().as_read_only();
  auto* t = interop::export_versioned(ro);
  EXPECT_EQ(t->flags, flag_read_only);
  auto b = interop::import_versioned(t);
  EXPECT_TRUE(b.read_only());
  EXPECT_EQ(b.data(), ro.data());
  EXPECT_EQ(b.strides(), ro.strides());
  if (b.size() > 0) {
    std::vector<unsigned char> zero(b.itemsize());
    EXPECT_THROW(b.fill(zero.data(), {}), logic_error) << "writing to a read-only import";
  }
  // The legacy struct cannot say read-only, so it is refused.
  expect_throw_exact<logic_error>([&] { (void)interop::export_legacy(ro); }, "read-only");
}

std::string round_trip_name(const ::testing::TestParamInfo<std::tuple<dtype, layout>>& info) {
  return std::get<0>(info.param).name() + "_" + std::get<1>(info.param).name;
}

INSTANTIATE_TEST_SUITE_P(AllDtypesAndLayouts, DlpackRoundTrip,
                         ::testing::Combine(::testing::ValuesIn(all_dtypes()), ::testing::ValuesIn(layouts())),
                         round_trip_name);

// --- export ----------------------------------------------------------------------

TEST(DlpackExport, FlagsAddToReadOnly) {
  auto a = device_ndarray::empty({4}, dtypes::float32);
  auto* copied = interop::export_versioned(a, flag_is_copied);
  EXPECT_EQ(copied->flags, flag_is_copied);
  auto b = interop::import_versioned(copied);  // passes through: not read-only, not refused
  EXPECT_FALSE(b.read_only());
  EXPECT_EQ(b.data(), a.data());

  auto* both = interop::export_versioned(a.as_read_only(), flag_is_copied);
  EXPECT_EQ(both->flags, flag_is_copied | flag_read_only);
  EXPECT_TRUE(interop::import_versioned(both).read_only());

  // A flag asked for on a writable array does not make it read-only, nor
  // the other way round.
  auto* ro = interop::export_versioned(a, flag_read_only);
  EXPECT_EQ(ro->flags, flag_read_only);
  EXPECT_TRUE(interop::import_versioned(ro).read_only());
  EXPECT_FALSE(a.read_only());
}

TEST(DlpackExport, RefusalsTakeNoReference) {
  auto a = device_ndarray::empty({8}, dtypes::int32);
  auto uses = a.allocation().use_count();
  expect_throw_exact<logic_error>([&] { (void)interop::export_legacy(a.as_read_only()); }, "read-only");
  EXPECT_EQ(a.allocation().use_count(), uses);
  // Strides that are not whole items cannot be said in DLPack's units.
  device_ndarray odd(a.allocation(), 0, {3}, {6}, dtypes::int32);
  uses = a.allocation().use_count();
  expect_throw_exact<logic_error>([&] { (void)interop::export_versioned(odd); }, "stride 6");
  expect_throw_exact<logic_error>([&] { (void)interop::export_legacy(odd); }, "stride 6");
  EXPECT_EQ(a.allocation().use_count(), uses);
}

class DlpackExportOwnership : public pending_frees {
 protected:
  void SetUp() override {
    pending_frees::SetUp();
    if (IsSkipped()) return;
    resource_ = std::make_unique<scoped_resource>(stats_);
  }
  void TearDown() override {
    resource_.reset();
    pending_frees::TearDown();
  }
  std::size_t live() const { return stats_->stats().current_count; }

  std::shared_ptr<memory::statistics_resource_adaptor> stats_ =
      std::make_shared<memory::statistics_resource_adaptor>(memory::current_resource());
  std::unique_ptr<scoped_resource> resource_;
};

TEST_F(DlpackExportOwnership, TheVersionedDeleterReleasesTheAllocation) {
  auto a = device_ndarray::empty({16}, dtypes::int32);
  ASSERT_EQ(live(), 1u);
  auto uses = a.allocation().use_count();
  auto* t = interop::export_versioned(a);
  EXPECT_EQ(a.allocation().use_count(), uses + 1);
  std::weak_ptr<memory::allocation> w = a.allocation();
  a = {};
  flush();
  EXPECT_FALSE(w.expired()) << "the tensor holds the memory";
  EXPECT_EQ(live(), 1u);
  t->deleter(t);
  EXPECT_TRUE(w.expired());
  flush();
  EXPECT_EQ(live(), 0u);
}

TEST_F(DlpackExportOwnership, TheLegacyDeleterReleasesTheAllocation) {
  auto a = device_ndarray::empty({16}, dtypes::int32);
  auto uses = a.allocation().use_count();
  auto* t = interop::export_legacy(a);
  EXPECT_EQ(a.allocation().use_count(), uses + 1);
  t->deleter(t);
  EXPECT_EQ(a.allocation().use_count(), uses);
  a = {};
  flush();
  EXPECT_EQ(live(), 0u);
}

TEST_F(DlpackExportOwnership, AnImportOfOurExportHoldsTheMemoryUntilItsLastView) {
  for (bool versioned : {true, false}) {
    SCOPED_TRACE(versioned ? "versioned" : "legacy");
    auto a = device_ndarray::empty({4, 4}, dtypes::float64);
    std::weak_ptr<memory::allocation> w = a.allocation();
    auto b = versioned ? interop::import_versioned(interop::export_versioned(a))
                       : interop::import_legacy(interop::export_legacy(a));
    auto row = view(b, {I(2)});
    a = {};
    b = {};
    flush();
    EXPECT_FALSE(w.expired()) << "a view of the import is alive";
    EXPECT_EQ(live(), 1u);
    row = {};
    flush();  // runs the import's release: our deleter, which lets go of the allocation
    EXPECT_TRUE(w.expired());
    flush();  // and the memory's own free, queued by then
    EXPECT_EQ(live(), 0u);
  }
}

// --- import of producers' tensors ------------------------------------------------

/// A tensor made by hand as another library would make one, over memory the
/// test owns: its deleter counts its calls and frees nothing, so that a
/// second call is seen rather than being a double free. Declare it before
/// the arrays imported from it.
template <class Managed>
class foreign_tensor {
 public:
  foreign_tensor(void* data, DLDevice device, DLDataType type, extents shape, std::optional<extents> strides = {},
                 std::uint64_t byte_offset = 0)
      : shape_(std::move(shape)), strides_(strides.value_or(extents{})) {
    if constexpr (std::is_same_v<Managed, DLManagedTensorVersioned>) m_.version = {major_version, minor_version};
    m_.manager_ctx = this;
    m_.deleter = &count;
    auto& t = m_.dl_tensor;
    t.data = data;
    t.device = device;
    t.ndim = static_cast<std::int32_t>(shape_.size());
    t.dtype = type;
    t.shape = shape_.data();
    t.strides = strides ? strides_.data() : nullptr;
    t.byte_offset = byte_offset;
  }
  /// Imports of it queue their release when they go: run it while the
  /// counter is still here.
  ~foreign_tensor() { memory::deallocation_queue::instance().flush_forced(); }
  foreign_tensor(const foreign_tensor&) = delete;
  foreign_tensor& operator=(const foreign_tensor&) = delete;

  Managed* get() noexcept { return &m_; }
  DLTensor& tensor() noexcept { return m_.dl_tensor; }
  int deletes() const noexcept { return deletes_.load(); }

 private:
  static void count(Managed* self) { ++static_cast<foreign_tensor*>(self->manager_ctx)->deletes_; }

  Managed m_{};
  extents shape_, strides_;
  std::atomic<int> deletes_{0};
};

constexpr DLDataType int32_type{kDLInt, 32, 1};

template <class Managed>
class DlpackForeign : public pending_frees {
 protected:
  using tensor = foreign_tensor<Managed>;
  static constexpr bool versioned = std::is_same_v<Managed, DLManagedTensorVersioned>;

  void SetUp() override {
    pending_frees::SetUp();
    mem_ = device_ndarray::empty({64}, dtypes::int32);
  }

  /// Memory for the producer: 64 int32 of device memory (host memory on
  /// the cpu backend), with the DLPack device to describe it.
  void* data() const { return mem_.data(); }
  DLDevice dev() const { return interop::dlpack_device_of(mem_); }
  /// The view of the producer's memory a tensor should import as.
  device_ndarray expected(std::int64_t offset, extents shape, extents strides) const {
    return device_ndarray(mem_.allocation(), offset, std::move(shape), std::move(strides), dtypes::int32);
  }

  /// Expects the import of a 4x4 int32 tensor changed by `corrupt` to
  /// throw exactly E with `text` in its message, having run the deleter
  /// once by then.
  template <class E>
  void expect_refused(const char* what, const std::function<void(tensor&)>& corrupt, const std::string& text) {
    tensor t(data(), dev(), int32_type, {4, 4});
    corrupt(t);
    expect_throw_exact<E>([&] { (void)import_any(t.get()); }, text, what);
    EXPECT_EQ(t.deletes(), 1) << what << ": the deleter runs at once when the import fails";
    flush();
    EXPECT_EQ(t.deletes(), 1) << what << ": and only once";
  }

  device_ndarray mem_;
};

using managed_types = ::testing::Types<DLManagedTensorVersioned, DLManagedTensor>;
struct managed_names {
  template <class T>
  static std::string GetName(int) {
    return std::is_same_v<T, DLManagedTensorVersioned> ? "Versioned" : "Legacy";
  }
};
TYPED_TEST_SUITE(DlpackForeign, managed_types, managed_names);

TYPED_TEST(DlpackForeign, ByteOffsetAndStridesInItems) {
  // Rows of 3 every 8 items, every other item, 8 bytes in.
  typename TestFixture::tensor t(this->data(), this->dev(), int32_type, {3, 3}, extents{8, 2}, 8);
  auto a = import_any(t.get());
  EXPECT_EQ(a.data(), static_cast<char*>(this->data()) + 8);
  EXPECT_EQ(a.shape(), (extents{3, 3}));
  EXPECT_EQ(a.strides(), (extents{32, 8}));
  EXPECT_EQ(a.type(), dtypes::int32);
  EXPECT_FALSE(a.read_only());
  expect_same_elements(a, this->expected(8, {3, 3}, {32, 8}));
}

TYPED_TEST(DlpackForeign, AByteOffsetPastTheAddressSpaceIsRefusedBeforeItIsAPointer) {
  // data + byte_offset wraps past 2^64: refused with the sum's words, never formed as a pointer
  // (undefined behaviour; UBSan runs this suite in CI). A large offset that does not wrap is
  // memory this process has not mapped.
  {
    typename TestFixture::tensor t(this->data(), this->dev(), int32_type, {4}, {}, ~std::uint64_t{0} - 7);
    CUFORGE_EXPECT_THROW_WITH(logic_error, "passes the end of the address space", (void)import_any(t.get()));
    EXPECT_EQ(t.deletes(), 1);
  }
  {
    typename TestFixture::tensor t(this->data(), this->dev(), int32_type, {4}, {}, std::uint64_t{1} << 62);
    EXPECT_THROW((void)import_any(t.get()), logic_error);
    EXPECT_EQ(t.deletes(), 1);
  }
}

TYPED_TEST(DlpackForeign, NoStridesMeanRowMajor) {
  typename TestFixture::tensor t(this->data(), this->dev(), int32_type, {2, 3, 4});
  auto a = import_any(t.get());
  EXPECT_EQ(a.strides(), (extents{48, 16, 4}));
  EXPECT_TRUE(a.is_c_contiguous());
  expect_same_elements(a, this->expected(0, {2, 3, 4}, {48, 16, 4}));
}

TYPED_TEST(DlpackForeign, NegativeStridesReachBackwards) {
  // From the 16th item backwards: rows of 4 going down by 4.
  auto* last = static_cast<char*>(this->data()) + 15 * 4;
  typename TestFixture::tensor t(last, this->dev(), int32_type, {4, 4}, extents{-4, -1});
  auto a = import_any(t.get());
  EXPECT_EQ(a.data(), last);
  EXPECT_EQ(a.strides(), (extents{-16, -4}));
  EXPECT_EQ(a.extent_bytes(), (std::pair<std::int64_t, std::int64_t>{-60, 4}));
  expect_same_elements(a, this->expected(60, {4, 4}, {-16, -4}));
}

TYPED_TEST(DlpackForeign, ZeroDimAndEmpty) {
  typename TestFixture::tensor scalar(static_cast<char*>(this->data()) + 20, this->dev(), int32_type, {});
  scalar.tensor().shape = nullptr;  // allowed with no dimensions
  auto s = import_any(scalar.get());
  EXPECT_EQ(s.ndim(), 0u);
  EXPECT_EQ(s.size(), 1);
  expect_same_elements(s, this->expected(20, {}, {}));

  typename TestFixture::tensor empty(nullptr, this->dev(), int32_type, {0, 5});  // no elements: null is fine
  auto e = import_any(empty.get());
  EXPECT_EQ(e.shape(), (extents{0, 5}));
  EXPECT_EQ(e.size(), 0);
  EXPECT_EQ(e.data(), nullptr);
}

TYPED_TEST(DlpackForeign, EveryDtypeImports) {
  for (auto [ours, theirs] : dtype_table()) {
    typename TestFixture::tensor t(this->data(), this->dev(), theirs, {4});
    auto a = import_any(t.get());
    EXPECT_EQ(a.type(), ours) << ours.name();
    EXPECT_EQ(a.strides(), (extents{static_cast<std::int64_t>(ours.itemsize)})) << ours.name();
  }
}

TYPED_TEST(DlpackForeign, FlagsOnImport) {
  if constexpr (TestFixture::versioned) {
    typename TestFixture::tensor ro(this->data(), this->dev(), int32_type, {4});
    ro.get()->flags = flag_read_only;
    EXPECT_TRUE(import_any(ro.get()).read_only());
    typename TestFixture::tensor copied(this->data(), this->dev(), int32_type, {4});
    copied.get()->flags = flag_is_copied;
    EXPECT_FALSE(import_any(copied.get()).read_only());
    // A newer minor version is the same ABI.
    typename TestFixture::tensor newer(this->data(), this->dev(), int32_type, {4});
    newer.get()->version = {major_version, minor_version + 5};
    EXPECT_EQ(import_any(newer.get()).size(), 4);
  } else {
    typename TestFixture::tensor t(this->data(), this->dev(), int32_type, {4});
    EXPECT_FALSE(import_any(t.get()).read_only()) << "legacy tensors are writable";
  }
}

TYPED_TEST(DlpackForeign, TheDeleterRunsOnceWhenTheLastViewGoes) {
  typename TestFixture::tensor t(this->data(), this->dev(), int32_type, {4, 4});
  auto a = import_any(t.get());
  auto rows = view(a, {S(1, 3)});
  auto row = view(rows, {I(1)});                           // a view of a view
  auto flat = a.reshape({16});                              // a reshape that is a view
  auto turned = flat.reshape({2, 8}).transpose();           // and views of it
  ASSERT_EQ(flat.data(), a.data()) << "the reshape should be a view";
  a = {};
  rows = {};
  flat = {};
  this->flush();
  EXPECT_EQ(t.deletes(), 0) << "views are alive";
  turned = {};
  this->flush();
  EXPECT_EQ(t.deletes(), 0) << "one view is alive";
  row = {};
  EXPECT_EQ(t.deletes(), 0) << "the deleter waits for the deferred frees";
  EXPECT_EQ(this->q_.pending_count(), 1u);
  this->flush();
  EXPECT_EQ(t.deletes(), 1);
  this->flush();
  EXPECT_EQ(t.deletes(), 1);
}

TYPED_TEST(DlpackForeign, ACopyDoesNotHoldTheProducer) {
  typename TestFixture::tensor t(this->data(), this->dev(), int32_type, {4, 4});
  auto a = import_any(t.get());
  auto c = a.copy();  // not a view
  ASSERT_NE(c.data(), a.data());
  a = {};
  this->flush();
  EXPECT_EQ(t.deletes(), 1);
  EXPECT_EQ(c.size(), 16);
}

TYPED_TEST(DlpackForeign, ANullDeleterIsAllowed) {
  typename TestFixture::tensor t(this->data(), this->dev(), int32_type, {4});
  t.get()->deleter = nullptr;
  { auto a = import_any(t.get()); }
  this->flush();
  typename TestFixture::tensor bad(this->data(), this->dev(), {kDLBfloat, 16, 1}, {4});
  bad.get()->deleter = nullptr;
  EXPECT_THROW((void)import_any(bad.get()), type_error);
  EXPECT_EQ(t.deletes() + bad.deletes(), 0);
}

TYPED_TEST(DlpackForeign, ANullTensorIsRefused) {
  EXPECT_THROW((void)import_any(static_cast<TypeParam*>(nullptr)), logic_error);
}

TYPED_TEST(DlpackForeign, FailedImportsRunTheDeleterAtOnce) {
  using tensor = typename TestFixture::tensor;
  this->template expect_refused<type_error>("bfloat16", [](tensor& t) { t.tensor().dtype = {kDLBfloat, 16, 1}; },
                                            "bfloat16");
  this->template expect_refused<type_error>(
      "float8_e4m3fn", [](tensor& t) { t.tensor().dtype = {10, 8, 1}; }, "code 10");
  this->template expect_refused<type_error>(
      "float4_e2m1fn", [](tensor& t) { t.tensor().dtype = {17, 4, 1}; }, "code 17");
  this->template expect_refused<type_error>(
      "lanes", [](tensor& t) { t.tensor().dtype = {kDLFloat, 32, 4}; }, "4 lanes");
  this->template expect_refused<type_error>(
      "opaque handle", [](tensor& t) { t.tensor().dtype = {kDLOpaqueHandle, 64, 1}; }, "opaque");
  this->template expect_refused<logic_error>(
      "negative shape", [](tensor& t) { t.tensor().shape[1] = -4; }, "negative");
  this->template expect_refused<logic_error>(
      "null data", [](tensor& t) { t.tensor().data = nullptr; }, "null data");
  this->template expect_refused<logic_error>(
      "no shape", [](tensor& t) { t.tensor().shape = nullptr; }, "no shape");
  this->template expect_refused<logic_error>(
      "65 dimensions", [](tensor& t) { t.tensor().ndim = 65; }, "65 dimensions");
  this->template expect_refused<logic_error>(
      "negative ndim", [](tensor& t) { t.tensor().ndim = -1; }, "-1 dimensions");
  this->template expect_refused<logic_error>(
      "ROCm", [](tensor& t) { t.tensor().device = {kDLROCM, 0}; }, "kDLROCM");
  this->template expect_refused<logic_error>(
      "Vulkan", [](tensor& t) { t.tensor().device = {kDLVulkan, 0}; }, "kDLVulkan");
  static std::int64_t huge_stride[] = {std::int64_t{1} << 62, 1};
  this->template expect_refused<logic_error>(
      "stride overflow", [](tensor& t) { t.tensor().strides = huge_stride; }, "overflows");
  static std::int64_t far_stride[] = {std::int64_t{1} << 60, 1};
  this->template expect_refused<logic_error>(
      "extent overflow", [](tensor& t) { t.tensor().strides = far_stride; }, "overflows");
  if constexpr (TestFixture::versioned) {
    this->template expect_refused<logic_error>(
        "major version 2", [](tensor& t) { t.get()->version = {2, 0}; }, "major version 2");
    this->template expect_refused<logic_error>(
        "major version 0", [](tensor& t) { t.get()->version = {0, 8}; }, "major version 0");
  }
}

TYPED_TEST(DlpackForeign, CudaTensorsAreRefusedOnTheCpuBackend) {
  CUFORGE_REQUIRE_CPU("the cuda backend imports CUDA tensors");
  using tensor = typename TestFixture::tensor;
  for (auto type : {kDLCUDA, kDLCUDAHost, kDLCUDAManaged}) {
    this->template expect_refused<logic_error>(
        "a CUDA device type", [type](tensor& t) { t.tensor().device = {type, 0}; }, "cpu backend");
  }
}

TYPED_TEST(DlpackForeign, HostMemoryIsDeviceMemoryOnTheCpuBackend) {
  CUFORGE_REQUIRE_CPU("host memory is not device memory on the cuda backend");
  std::vector<std::int32_t> host(8, 7);
  typename TestFixture::tensor t(host.data(), {kDLCPU, 0}, int32_type, {2, 4});
  auto a = import_any(t.get());
  EXPECT_EQ(a.data(), host.data());
  EXPECT_EQ(a.allocation()->kind(), memory_kind::pageable);
  std::int32_t v = 42;
  mem::copy_sync(cuforge::testing::element_ptr(a, {1, 2}), &v, 4, stream_view{});
  EXPECT_EQ(host[6], 42);
}

TYPED_TEST(DlpackForeign, HostTensorsForKernelArgumentsImportAsHostMemoryOnEveryBackend) {
  // allow_host: a kernel argument in host memory, checked as every import is,
  // then transferred like a NumPy array (the binding's host_array_of_dlpack).
  std::vector<std::int32_t> host(16, 7);
  typename TestFixture::tensor t(host.data(), {kDLCPU, 0}, int32_type, {16});
  auto a = import_any(t.get(), true);
  EXPECT_EQ(a.data(), host.data());
  EXPECT_EQ(a.size(), 16);
  EXPECT_TRUE(a.allocation()->kind() == memory_kind::pageable) << to_string(a.allocation()->kind());
  typename TestFixture::tensor bad(nullptr, {kDLCPU, 0}, int32_type, {16});
  EXPECT_THROW((void)import_any(bad.get(), true), logic_error) << "allow_host keeps every other check";
}

TYPED_TEST(DlpackForeign, CudaRefusesHostTensorsAndUnknownOrdinals) {
  CUFORGE_REQUIRE_CUDA();
  using tensor = typename TestFixture::tensor;
  this->template expect_refused<logic_error>(
      "kDLCPU", [](tensor& t) { t.tensor().device = {kDLCPU, 0}; }, "kDLCPU");
  int n = device::count();
  this->template expect_refused<logic_error>(
      "device past the last", [n](tensor& t) { t.tensor().device.device_id = n; }, "device " + std::to_string(n));
  this->template expect_refused<logic_error>(
      "negative device", [](tensor& t) { t.tensor().device.device_id = -1; }, "device -1");
}

TYPED_TEST(DlpackForeign, CudaHostAndManagedTensorsImportWithTheirKind) {
  CUFORGE_REQUIRE_CUDA();
  auto pinned = over(memory::allocation::make(memory::pinned_resource(), 64));
  typename TestFixture::tensor p(pinned.data(), {kDLCUDAHost, 0}, int32_type, {16});
  auto a = import_any(p.get());
  EXPECT_EQ(a.allocation()->kind(), memory_kind::pinned);
  EXPECT_EQ(a.allocation()->host_data(), pinned.data());
  expect_same_elements(a, pinned);

  auto managed = over(memory::allocation::make(memory::managed_resource(), 64));
  typename TestFixture::tensor m(managed.data(), {kDLCUDAManaged, device::current().ordinal()}, int32_type, {16});
  auto b = import_any(m.get());
  EXPECT_EQ(b.allocation()->kind(), memory_kind::managed);
  expect_same_elements(b, managed);
}

}  // namespace
