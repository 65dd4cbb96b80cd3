// Element types and the shape arithmetic under every array: dtype type
// strings, element counts, contiguous strides and broadcasting.

#include <cuforge/devicearray/device_ndarray.hpp>
#include <cuforge/devicearray/dtype.hpp>
#include <cuforge/runtime/error.hpp>

#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace {

using namespace cuforge;

TEST(Dtype, FromTypestrAcceptsEveryNumericKind) {
  struct row {
    const char* typestr;
    dtype want;
    const char* name;
  };
  const row rows[] = {
      {"|b1", dtypes::bool_, "bool"},         {"|i1", dtypes::int8, "int8"},
      {"<i2", dtypes::int16, "int16"},        {"<i4", dtypes::int32, "int32"},
      {"<i8", dtypes::int64, "int64"},        {"|u1", dtypes::uint8, "uint8"},
      {"<u2", dtypes::uint16, "uint16"},      {"<u4", dtypes::uint32, "uint32"},
      {"<u8", dtypes::uint64, "uint64"},      {"<f2", dtypes::float16, "float16"},
      {"<f4", dtypes::float32, "float32"},    {"<f8", dtypes::float64, "float64"},
      {"<c8", dtypes::complex64, "complex64"}, {"<c16", dtypes::complex128, "complex128"},
  };
  for (const auto& r : rows) {
    SCOPED_TRACE(r.typestr);
    dtype d = dtype::from_typestr(r.typestr);
    EXPECT_EQ(d, r.want);
    EXPECT_EQ(d.typestr(), r.typestr) << "type strings round-trip";
    EXPECT_EQ(d.name(), r.name);
    EXPECT_EQ(dtype::from_typestr(d.typestr()), d);
  }
  // Native and not-applicable byte orders are little-endian here too.
  EXPECT_EQ(dtype::from_typestr("=f4"), dtypes::float32);
  EXPECT_EQ(dtype::from_typestr("<b1"), dtypes::bool_);
  EXPECT_EQ(dtype::from_typestr("<u1"), dtypes::uint8);
  EXPECT_EQ(dtype::from_typestr(">i1"), dtypes::int8) << "byte order does not matter for one byte";
  EXPECT_EQ(dtype::from_typestr("|f8"), dtypes::float64);
}

TEST(Dtype, RejectsWhatCannotLiveInDeviceArrays) {
  for (const char* bad : {"|O", "|O8", "<U4", "|S8", "|V8", ">f4", ">i8", "<f3", "<i3", "<u16", "|b2", "<c4",
                          "<c32", "<M4", "<m8[10s]", "<M8[xyz]", "<M8[D", ">M8[D]", "", "<", "f", "<f", "xf4",
                          "<f4x", "<x4", "<f999"}) {
    SCOPED_TRACE(bad);
    try {
      (void)dtype::from_typestr(bad);
      ADD_FAILURE() << "accepted";
    } catch (const type_error& e) {
      EXPECT_NE(std::string(e.what()).find("'" + std::string(bad) + "'"), std::string::npos)
          << "the message names the type string: " << e.what();
    }
  }
}

TEST(Dtype, DtypeOfMatchesTheCppTypes) {
  static_assert(dtype_of<float>() == dtypes::float32);
  static_assert(dtype_of<std::complex<double>>() == dtypes::complex128);
  EXPECT_EQ(dtype_of<std::int16_t>().itemsize, 2);
  EXPECT_EQ(dtype_of<std::uint64_t>().typestr(), "<u8");
  EXPECT_EQ(dtype_of<bool>().typestr(), "|b1");
  EXPECT_NE(dtypes::int32, dtypes::uint32);
  EXPECT_NE(dtypes::int32, dtypes::float32);
}

TEST(Shape, ElementCount) {
  EXPECT_EQ(element_count({}), 1);
  EXPECT_EQ(element_count({7}), 7);
  EXPECT_EQ(element_count({2, 3, 4}), 24);
  EXPECT_EQ(element_count({3, 0, 5}), 0);
  EXPECT_EQ(element_count({std::numeric_limits<std::int64_t>::max()}), std::numeric_limits<std::int64_t>::max());
  CUFORGE_EXPECT_THROW_WITH(logic_error, "negative dimensions", (void)element_count({-1}));
  CUFORGE_EXPECT_THROW_WITH(logic_error, "negative dimensions", (void)element_count({3, -2, 4}));
  CUFORGE_EXPECT_THROW_WITH(logic_error, "too big", (void)element_count({std::numeric_limits<std::int64_t>::max(), 2}));
  CUFORGE_EXPECT_THROW_WITH(logic_error, "too big", (void)element_count({std::int64_t{1} << 32, std::int64_t{1} << 32}));
  CUFORGE_EXPECT_THROW_WITH(logic_error, "too big",
                            (void)element_count({std::int64_t{1} << 31, std::int64_t{1} << 31, 4}));
  EXPECT_EQ(element_count(extents(64, 1)), 1);
  EXPECT_THROW((void)element_count(extents(65, 1)), logic_error);
}

TEST(Shape, ContiguousStrides) {
  EXPECT_EQ(contiguous_strides({2, 3, 4}, 4, 'C'), (extents{48, 16, 4}));
  EXPECT_EQ(contiguous_strides({2, 3, 4}, 4, 'F'), (extents{4, 8, 24}));
  EXPECT_EQ(contiguous_strides({5}, 8, 'C'), (extents{8}));
  EXPECT_EQ(contiguous_strides({}, 8, 'C'), (extents{}));
  // Zero extents count as one, as NumPy lays empty arrays out.
  EXPECT_EQ(contiguous_strides({0, 3}, 2, 'C'), (extents{6, 2}));
  EXPECT_EQ(contiguous_strides({0, 3}, 2, 'F'), (extents{2, 2}));
  EXPECT_THROW((void)contiguous_strides({2}, 4, 'A'), logic_error);
}

TEST(Shape, BroadcastStrides) {
  EXPECT_EQ(broadcast_strides({3}, {4}, {2, 3}), (extents{0, 4}));
  EXPECT_EQ(broadcast_strides({2, 1}, {8, 8}, {2, 3}), (extents{8, 0}));
  EXPECT_EQ(broadcast_strides({1, 3}, {12, 4}, {5, 3}), (extents{0, 4}));
  EXPECT_EQ(broadcast_strides({}, {}, {2, 2}), (extents{0, 0}));
  EXPECT_EQ(broadcast_strides({2, 3}, {-12, 4}, {2, 3}), (extents{-12, 4}));
  CUFORGE_EXPECT_THROW_WITH(logic_error, "could not broadcast input array from shape (2,) into shape (3,)",
                            (void)broadcast_strides({2}, {4}, {3}));
  CUFORGE_EXPECT_THROW_WITH(logic_error, "from shape (2, 3) into shape (3,)", (void)broadcast_strides({2, 3}, {12, 4}, {3}));
  EXPECT_THROW((void)broadcast_strides({3, 2}, {8, 4}, {3, 3}), logic_error);
}

TEST(Dtype, RecordLayoutsAreInternedAndChecked) {
  record_layout r;
  r.fields = {{"a", 0, dtypes::float64, {}}, {"h", 8, dtypes::float32, {2}}};
  r.itemsize = 16;
  r.aligned = true;
  const record_layout* p = intern_record(r);
  EXPECT_EQ(intern_record(r), p);  // one copy per layout
  dtype d = dtype::of_record(p);
  EXPECT_TRUE(d.is_record());
  EXPECT_EQ(d.itemsize, 16u);
  EXPECT_EQ(d.typestr(), "|V16");
  EXPECT_EQ(d.name(), "void128");
  EXPECT_EQ(p->str(), "Record(a[type=float64;offset=0],h[type=nestedarray(float32, (2,));offset=8];16;True)");
  EXPECT_NE(d, dtypes::uint64);
  EXPECT_THROW((void)d.scalar(), type_error);
  ASSERT_NE(p->find("h"), nullptr);
  EXPECT_EQ(p->find("h")->size(), 8);
  EXPECT_EQ(p->find("x"), nullptr);
  record_layout bad = r;
  bad.fields[1].offset = 12;  // 8 bytes at 12 leave the 16-byte record
  EXPECT_THROW(intern_record(bad), logic_error);
  bad = r;
  bad.fields[1].name = "a";
  EXPECT_THROW(intern_record(bad), logic_error);
  EXPECT_THROW(dtype::from_typestr("|V16"), type_error);  // raw bytes: no fields to say what they hold
}

}  // namespace

TEST(Dtype, DatetimesAreInt64CountsOfAUnit) {
  const dtype d = dtype::from_typestr("<M8[D]");
  EXPECT_TRUE(d.is_time());
  EXPECT_EQ(d.itemsize, 8u);
  EXPECT_EQ(d.typestr(), "<M8[D]");
  EXPECT_EQ(d.name(), "datetime64[D]");
  EXPECT_EQ(&d.scalar(), &info(scalar_id::int64));  // its storage
  EXPECT_EQ(dtype::from_typestr("<m8[ms]").name(), "timedelta64[ms]");
  EXPECT_EQ(dtype::from_typestr("<m8").typestr(), "<m8");  // generic
  EXPECT_EQ(dtype::from_typestr("=M8[ns]"), dtype::of_time('M', datetime_unit_code("ns")));
  EXPECT_NE(dtype::from_typestr("<M8[s]"), dtype::from_typestr("<M8[ms]"));
  EXPECT_NE(dtype::from_typestr("<M8[s]"), dtype::from_typestr("<m8[s]"));
  EXPECT_NE(dtype::from_typestr("<m8[s]"), dtypes::int64);
}
