// The compiler's shared pieces: type interning, NumPy promotion, type
// specs, the IR builder and its dump, diagnostics.
#include <cuforge/frontend/diagnostics.hpp>
#include <cuforge/frontend/ir.hpp>
#include <cuforge/frontend/types.hpp>

#include <gtest/gtest.h>

using namespace cuforge::frontend;

TEST(Types, AreInterned) {
  type_context tc;
  EXPECT_EQ(tc.float32(), tc.floating(32));
  EXPECT_EQ(tc.array(tc.float32(), 2, array_layout::c), tc.array(tc.float32(), 2, array_layout::c));
  EXPECT_NE(tc.array(tc.float32(), 2, array_layout::c), tc.array(tc.float32(), 2, array_layout::f));
  EXPECT_EQ(tc.tuple({tc.int64(), tc.int64()})->str(), "UniTuple(int64 x 2)");
  EXPECT_EQ(tc.tuple({tc.int64(), tc.float32()})->str(), "Tuple(int64, float32)");
  EXPECT_EQ(tc.array(tc.float32(), 1, array_layout::c)->str(), "array(float32, 1d, C)");
}

TEST(Types, PromoteIsNumPysPromoteTypes) {
  // How Numba unifies values that meet (variables, conditionals, min/max).
  type_context tc;
  auto p = [&](const type* a, const type* b) { return promote(tc, a, b); };
  EXPECT_EQ(p(tc.int32(), tc.int32()), tc.int32());
  EXPECT_EQ(p(tc.int32(), tc.int64()), tc.int64());
  EXPECT_EQ(p(tc.uint64(), tc.int64()), tc.float64());
  EXPECT_EQ(p(tc.uint32(), tc.int32()), tc.int64());
  EXPECT_EQ(p(tc.uint8(), tc.int8()), tc.int16());
  EXPECT_EQ(p(tc.int32(), tc.float32()), tc.float64());
  EXPECT_EQ(p(tc.int16(), tc.float16()), tc.float32());
  EXPECT_EQ(p(tc.int8(), tc.float16()), tc.float16());
  EXPECT_EQ(p(tc.complex64(), tc.float64()), tc.complex128());
  EXPECT_EQ(p(tc.complex64(), tc.complex64()), tc.complex64());
  EXPECT_EQ(p(tc.complex64(), tc.complex128()), tc.complex128());
  EXPECT_EQ(p(tc.int16(), tc.complex64()), tc.complex64());
  EXPECT_EQ(p(tc.int32(), tc.complex64()), tc.complex128());
  EXPECT_EQ(p(tc.boolean(), tc.boolean()), tc.boolean());
  EXPECT_EQ(p(tc.boolean(), tc.int8()), tc.int8());
  EXPECT_EQ(p(tc.float32(), tc.boolean()), tc.float32());
  EXPECT_EQ(p(tc.float32(), tc.float64()), tc.float64());
  EXPECT_EQ(p(tc.int8(), tc.int64()), tc.int64());
}

TEST(Types, SpecsRoundTrip) {
  type_context tc;
  for (const char* s : {"float32", "bool", "none", "uint16", "complex128", "array(float32, 2d, C)",
                        "array(int64, 1d, A, readonly)", "UniTuple(int64 x 3)", "Tuple(int64, float32)"})
    EXPECT_EQ(parse_type(tc, s)->str(), s);
  EXPECT_THROW(parse_type(tc, "float31x"), cuforge::logic_error);
  EXPECT_THROW(parse_type(tc, "array(float32, 2d, Q)"), cuforge::logic_error);
}

TEST(Types, RecordsPrintAndParseInNumbasSpelling) {
  type_context tc;
  const type* inner = tc.record({{"a", tc.float64(), 0, {}}, {"b", tc.int32(), 8, {}}}, 16, true);
  EXPECT_EQ(inner->str(), "Record(a[type=float64;offset=0],b[type=int32;offset=8];16;True)");
  EXPECT_EQ(inner->align, 8);
  const type* outer =
      tc.record({{"k", tc.int16(), 0, {}}, {"r", inner, 2, {}}, {"h", tc.float32(), 18, {3, 2}}}, 42, false);
  EXPECT_EQ(outer->str(),
            "Record(k[type=int16;offset=0],r[type=Record(a[type=float64;offset=0],b[type=int32;offset=8];16;True);"
            "offset=2],h[type=nestedarray(float32, (3, 2));offset=18];42;False)");
  EXPECT_EQ(outer->align, 1);  // packed
  EXPECT_EQ(parse_type(tc, outer->str()), outer);
  EXPECT_EQ(parse_type(tc, "array(" + inner->str() + ", 1d, C)"), tc.array(inner, 1, array_layout::c));
  EXPECT_EQ(parse_type(tc, "Record(d[type=nestedarray(uint8, (5,));offset=0];5;False)")->fields[0].shape,
            (std::vector<std::int64_t>{5}));
  // The same layout in another space is another type; the global one is the canonical.
  const type* shared = tc.in_space(inner, address_space::shared);
  EXPECT_NE(shared, inner);
  EXPECT_EQ(tc.in_space(shared, address_space::global), inner);
  EXPECT_EQ(shared->str(), "Record(a[type=float64;offset=0],b[type=int32;offset=8];16;True;shared)");
  EXPECT_EQ(parse_type(tc, shared->str()), shared);
  // Fields outside the record, named twice, and malformed specs are refused.
  EXPECT_THROW(tc.record({{"a", tc.float64(), 4, {}}}, 8, false), cuforge::logic_error);
  EXPECT_THROW(tc.record({{"a", tc.int8(), 0, {}}, {"a", tc.int8(), 1, {}}}, 2, false), cuforge::logic_error);
  EXPECT_THROW(parse_type(tc, "Record(a[type=float64;offset=4];8;False)"), cuforge::logic_error);
  EXPECT_THROW(parse_type(tc, "Record(a[type=float64;offset=0];8;Maybe)"), cuforge::logic_error);
  EXPECT_THROW(parse_type(tc, "Record(a[type=nestedarray(float64, ());offset=0];8;False)"), cuforge::logic_error);
}

TEST(Types, EveryRowOfTheScalarTableIsAScalarType) {
  type_context tc;
  for (const auto& row : cuforge::scalar_types) {
    SCOPED_TRACE(std::string(row.name));
    const type* t = tc.scalar(row.id);
    ASSERT_TRUE(t->is_scalar());
    EXPECT_EQ(t->scalar(), &row) << "the type knows its row";
    EXPECT_EQ(t->str(), row.name) << "specs are the table's names";
    EXPECT_EQ(parse_type(tc, std::string(row.name)), t);
    EXPECT_EQ(tc.from_typestr(std::string(row.typestr())), t);
    EXPECT_EQ(t->itemsize(), row.bytes);
  }
  EXPECT_EQ(tc.float32(), tc.scalar(cuforge::scalar_id::float32));
  EXPECT_EQ(tc.bool_(), tc.boolean());
  EXPECT_EQ(tc.from_typestr("<f3"), nullptr);
  EXPECT_EQ(tc.none()->scalar(), nullptr);
}

TEST(Ir, BuilderAndDump) {
  builder b("f", "f", "f.py", 1);
  location l{2, 4};
  var_id x = b.param("x", l);
  var_id y = b.variable("y", l);
  expr_id sum = b.binary(binop::add, b.name(x, l), b.constant({constant_value::kind::integer, false, 1}, l), l);
  stmt_id s = b.assign(b.name(y, l), sum, l);
  stmt_id r = b.return_(b.name(y, l), l);
  b.set_body({s, r});
  auto f = b.finish();
  EXPECT_EQ(f->dump(), "def f(x):\n    y = (x + 1)\n    return y\n");
}

TEST(Diagnostics, PointAtTheSource) {
  builder b("k", "k", "k.py", 1);
  b.set_source({"def k(a):", "    return a + 'x'"});
  auto f = b.finish();
  typing_error e("Unsupported: strings", *f, location{2, 15});
  std::string what = e.what();
  EXPECT_NE(what.find("File \"k.py\", line 2, in k:"), std::string::npos) << what;
  EXPECT_NE(what.find("    return a + 'x'\n                   ^"), std::string::npos) << what;
  EXPECT_EQ(e.line(), 2);
  EXPECT_EQ(e.source_line(), "    return a + 'x'");
}
