// The scalar-type table every layer reads (cuforge/runtime/scalar_types.hpp):
// its rows are consistent with themselves and with the C++ types they name.

#include <cuforge/runtime/scalar_types.hpp>

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace {

using namespace cuforge;

TEST(ScalarTypes, RowsAreIndexedByTheirIdAndSizedAsTheirCppType) {
  int i = 0;
  for (const auto& s : scalar_types) {
    SCOPED_TRACE(std::string(s.name));
    EXPECT_EQ(static_cast<int>(s.id), i++) << "scalar_types is indexed by scalar_id";
    EXPECT_EQ(&info(s.id), &s);
  }
#define CUFORGE_CHECK_SIZE(id, name, kind, bytes, ctype, ...) \
  static_assert(sizeof(ctype) == (bytes), name " is stored as its C++ type");
  CUFORGE_SCALAR_TYPES(CUFORGE_CHECK_SIZE)
#undef CUFORGE_CHECK_SIZE
}

TEST(ScalarTypes, NamesAliasesAndTypeStringsAreUnique) {
  std::set<std::string> names, typestrs, numba, numpy;
  for (const auto& s : scalar_types) {
    EXPECT_TRUE(names.insert(std::string(s.name)).second) << s.name;
    EXPECT_TRUE(typestrs.insert(std::string(s.typestr())).second) << s.typestr();
    EXPECT_TRUE(find_scalar(s.kind, s.bytes) == &s) << "one row per kind and size: " << s.name;
    std::string_view list = s.numba_aliases;
    while (!list.empty()) {
      auto sp = list.find(' ');
      EXPECT_TRUE(numba.insert(std::string(list.substr(0, sp))).second) << "numba alias of two rows in " << s.name;
      if (sp == std::string_view::npos) break;
      list.remove_prefix(sp + 1);
    }
    list = s.numpy_aliases;
    while (!list.empty()) {
      auto sp = list.find(' ');
      EXPECT_TRUE(numpy.insert(std::string(list.substr(0, sp))).second) << "numpy alias of two rows in " << s.name;
      if (sp == std::string_view::npos) break;
      list.remove_prefix(sp + 1);
    }
  }
}

TEST(ScalarTypes, LookUpsFindEveryRow) {
  for (const auto& s : scalar_types) {
    SCOPED_TRACE(std::string(s.name));
    EXPECT_EQ(find_scalar(s.name), &s);
    EXPECT_EQ(find_scalar_typestr(s.typestr()), &s);
    EXPECT_EQ(find_numpy_scalar(s.name), &s);
    EXPECT_EQ(s.bits(), 8 * s.bytes);
    // Native and little-endian spellings name the same row.
    std::string native(s.typestr());
    native[0] = '=';
    EXPECT_EQ(find_scalar_typestr(native), &s);
  }
  EXPECT_EQ(find_numpy_scalar("single"), &info(scalar_id::float32));
  EXPECT_EQ(find_numpy_scalar("intc"), &info(scalar_id::int32));
  EXPECT_EQ(find_numpy_scalar("bool_"), &info(scalar_id::bool_));
  EXPECT_EQ(find_numpy_scalar("float128"), nullptr);
  EXPECT_EQ(std::string(info(scalar_id::complex128).typestr()), "<c16");
  EXPECT_EQ(std::string(info(scalar_id::uint8).typestr()), "|u1");
  for (const char* bad : {">f4", "<f3", "<x4", "", "<", "<f", "<f4x", "<f999999"})
    EXPECT_EQ(find_scalar_typestr(bad), nullptr) << bad;
  EXPECT_EQ(find_scalar_typestr(">i1"), &info(scalar_id::int8)) << "one byte has no byte order";
}

}  // namespace
