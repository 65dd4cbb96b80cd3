// The typer on arrays: element loads and stores, negative indices, views
// and their layouts, array attributes, what is written.
#include "typer_support.hpp"

using namespace typer_test;

namespace {

std::shared_ptr<function> kernel(env& e, const std::string& src, const std::vector<std::string>& args) {
  return e.infer(src, args).functions.at(0).ir;
}

const char* const f32 = "array(float32, 1d, C)";
const char* const m32 = "array(float32, 2d, C)";

}  // namespace

TEST(TyperArrays, LoadsAndStores) {
  env e;
  auto f = kernel(e, "def k(a, b, i):\n    b[i] = a[i] + 1\n", {"array(int16, 1d, C)", f32, "int32"});
  const expr& ld = only_op(*f, op_id::array_load);
  EXPECT_EQ(ld.ty->str(), "int16");
  EXPECT_EQ(operand_types(*f, ld), (std::vector<std::string>{"array(int16, 1d, C)", "int64"}));
  const expr& st = only_op(*f, op_id::array_store);
  EXPECT_EQ(st.ty->str(), "none");
  // The value converts to the dtype (int16 + 1 is int16; stored as float32).
  EXPECT_EQ(operand_types(*f, st), (std::vector<std::string>{f32, "float32", "int64"}));
  EXPECT_EQ(f->at(st.operands[1]).kind, expr_kind::cast);
  // A store is an expression statement.
  EXPECT_EQ(f->at_stmt(f->body[0]).kind, stmt_kind::expression);
  auto g = kernel(e, "def k(a, i, j):\n    x = a[i, j]\n    y = a[(i, 1)]\n    t = (j, i)\n    z = a[t]\n", {m32, "int64", "int64"});
  auto loads = ops_of(*g, op_id::array_load);
  ASSERT_EQ(loads.size(), 3u);
  for (const expr* l : loads) {
    EXPECT_EQ(l->operands.size(), 3u);
  }
  EXPECT_EQ(var_type(*g, "z"), "float32");
}

TEST(TyperArrays, NegativeIndexFlag) {
  env e;
  auto f = kernel(e, R"(def k(a, i, u, n):
    a[i] = 1.0
    a[u] = 2.0
    a[0] = 3.0
    a[-1] = 4.0
    for j in range(n):
        a[j] = 5.0
    for j2 in range(n - 1, -1, -1):
        a[j2] = 6.0
    m = 0
    while m < n:
        a[m] = 7.0
        m += 1
)",
                  {f32, "int64", "uint32", "int64"});
  auto stores = ops_of(*f, op_id::array_store);
  ASSERT_EQ(stores.size(), 7u);
  std::vector<std::int64_t> flags;
  for (const expr* s : stores) flags.push_back(s->attrs.at(0));
  // i may be negative; unsigned, constants >= 0, an ascending loop from 0
  // and a counter only ever incremented from 0 may not.
  EXPECT_EQ(flags, (std::vector<std::int64_t>{1, 0, 0, 1, 0, 1, 0}));
  auto g = kernel(e, "def k(a, n):\n    for j in range(n):\n        a[j - 1] = 0\n", {f32, "int64"});
  EXPECT_EQ(only_op(*g, op_id::array_store).attrs, (std::vector<std::int64_t>{1}));
}

TEST(TyperArrays, IndicesMustBeIntegers) {
  env e;
  std::string fl = "def k(a, x):\n    y = a[x]\n";
  EXPECT_TYPING_ERROR(e.fail(fl, {f32, "float32"}), "array indices must be integers, got float32", at(fl, 2, "x]"));
  std::string bo = "def k(a, x):\n    y = a[x]\n";
  EXPECT_TYPING_ERROR(e.fail(bo, {f32, "bool"}), "Unsupported: a boolean array index", at(bo, 2, "x]"));
  std::string none = "def k(a):\n    y = a[None]\n";
  EXPECT_TYPING_ERROR(e.fail(none, {f32}), "Unsupported: None (numpy.newaxis) in an array index", at(none, 2, "None"));
  std::string many = "def k(a):\n    y = a[0, 1]\n";
  EXPECT_TYPING_ERROR(e.fail(many, {f32}), "too many indices for array: array is 1-dimensional, but 2 were indexed",
                      at(many, 2, "a[0"));
  std::string arr = "def k(a, b):\n    y = a[b]\n";
  EXPECT_TYPING_ERROR(e.fail(arr, {f32, "array(int64, 1d, C)"}), "Unsupported: indexing an array with an array",
                      at(arr, 2, "b]"));
  std::string sl = "def k(a, x):\n    y = a[x:]\n";
  EXPECT_TYPING_ERROR(e.fail(sl, {f32, "float64"}), "slice indices must be integers, got float64", at(sl, 2, "x:"));
  std::string z = "def k(a):\n    y = a[::0]\n";
  EXPECT_TYPING_ERROR(e.fail(z, {f32}), "slice step cannot be zero", at(z, 2, "::0"));
}

TEST(TyperArrays, PartialIndexingMakesViews) {
  env e;
  auto f = kernel(e, "def k(a, i):\n    r = a[i]\n    r[0] = 1.0\n", {m32, "int64"});
  EXPECT_EQ(var_type(*f, "r"), "array(float32, 1d, C)");
  const expr& v = only_op(*f, op_id::array_view);
  EXPECT_EQ(v.attrs, (std::vector<std::int64_t>{0, 1}));
  ASSERT_EQ(v.operands.size(), 2u);
  // i may be negative: the view's index is counted from the end here.
  EXPECT_EQ(f->at(v.operands[1]).kind, expr_kind::conditional);
  auto g = kernel(e, "def k(a):\n    r = a[1]\n", {m32});
  EXPECT_EQ(g->at(only_op(*g, op_id::array_view).operands[1]).kind, expr_kind::constant);
}

TEST(TyperArrays, ViewLayouts) {
  env e;
  struct row {
    const char* array;
    const char* index;
    const char* result;
    std::vector<std::int64_t> attrs;
  } rows[] = {
      {m32, "a[1, :]", "array(float32, 1d, C)", {0, 1}},
      {m32, "a[:, 1]", "array(float32, 1d, A)", {1, 0}},
      {m32, "a[1:3]", "array(float32, 2d, C)", {2, 1}},
      {m32, "a[:, 1:3]", "array(float32, 2d, A)", {1, 2}},
      {m32, "a[::2]", "array(float32, 2d, A)", {2, 1}},
      {m32, "a[:, :]", "array(float32, 2d, C)", {1, 1}},
      {f32, "a[2:]", "array(float32, 1d, C)", {2}},
      {f32, "a[::-1]", "array(float32, 1d, A)", {2}},
      {"array(float32, 2d, F)", "a[:, 1]", "array(float32, 1d, C)", {1, 0}},
      {"array(float32, 2d, F)", "a[1, :]", "array(float32, 1d, A)", {0, 1}},
      {"array(float32, 3d, C)", "a[1]", "array(float32, 2d, C)", {0, 1, 1}},
      {"array(float32, 3d, C)", "a[1, 2:4]", "array(float32, 2d, C)", {0, 2, 1}},
      {"array(float32, 2d, A)", "a[1]", "array(float32, 1d, A)", {0, 1}},
      {"array(float32, 2d, C, readonly)", "a[1]", "array(float32, 1d, C, readonly)", {0, 1}},
  };
  for (const auto& r : rows) {
    auto f = kernel(e, std::string("def k(a):\n    v = ") + r.index + "\n", {r.array});
    EXPECT_EQ(var_type(*f, "v"), r.result) << r.array << " " << r.index;
    EXPECT_EQ(only_op(*f, op_id::array_view).attrs, r.attrs) << r.index;
  }
  // Absent slice bounds are INT64_MIN; present ones int64.
  auto g = kernel(e, "def k(a, n):\n    v = a[n:]\n", {f32, "int32"});
  const expr& v = only_op(*g, op_id::array_view);
  ASSERT_EQ(v.operands.size(), 4u);
  EXPECT_EQ(operand_types(*g, v), (std::vector<std::string>{f32, "int64", "int64", "int64"}));
  EXPECT_EQ(g->at(v.operands[2]).value.i, std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(g->at(v.operands[3]).value.i, std::numeric_limits<std::int64_t>::min());
  auto s = kernel(e, "def k(a):\n    s = cuda.shared.array((4, 4), float32)\n    v = s[1]\n", {f32});
  EXPECT_EQ(var_type(*s, "v"), "array(float32, 1d, C, shared)");
}

TEST(TyperArrays, Attributes) {
  env e;
  auto f = kernel(e, R"(def k(a, b):
    s = a.shape
    st = a.strides
    n = a.size
    d = a.ndim
    w = a.itemsize
    r = a.shape[0]
    x = b[0] * a.shape[1]
    l = len(a)
)",
                  {"array(float64, 2d, C)", f32});
  EXPECT_EQ(var_type(*f, "s"), "UniTuple(int64 x 2)");
  EXPECT_EQ(var_type(*f, "st"), "UniTuple(int64 x 2)");
  EXPECT_EQ(var_type(*f, "n"), "int64");
  EXPECT_EQ(var_type(*f, "d"), "int64");
  EXPECT_EQ(var_type(*f, "r"), "int64");
  EXPECT_EQ(var_type(*f, "l"), "int64");
  // Extents are Python ints (as NumPy's): float32 * a.shape[1] is float32.
  EXPECT_EQ(var_type(*f, "x"), "float64");
  EXPECT_EQ(ops_of(*f, op_id::array_stride).size(), 2u);
  EXPECT_EQ(ops_of(*f, op_id::array_size).size(), 1u);
  std::string dump = f->dump();
  EXPECT_NE(dump.find("d :: int64 = 2 :: int64"), std::string::npos) << dump;
  EXPECT_NE(dump.find("w :: int64 = 8 :: int64"), std::string::npos) << dump;
  std::string bad = "def k(a):\n    t = a.T\n";
  EXPECT_TYPING_ERROR(e.fail(bad, {m32}), "Unknown attribute 'T' of array(float32, 2d, C)", at(bad, 2, "a.T"));
  std::string len0 = "def k(a):\n    n = len(a)\n";
  EXPECT_TYPING_ERROR(e.fail(len0, {"array(float32, 0d, C)"}), "len() of a 0-d array", at(len0, 2, "len"));
}

TEST(TyperArrays, LoopOverAnArrayIndexByLength) {
  env e;
  // The walker turns `for x in a` into an index loop up to len(a).
  auto f = kernel(e, R"(def k(a, out):
    s = 0.0
    for i in range(len(a)):
        x = a[i]
        s += x
    out[0] = s
)",
                  {f32, "array(float64, 1d, C)"});
  EXPECT_EQ(var_type(*f, "i"), "int64");
  EXPECT_EQ(var_type(*f, "s"), "float64");
  EXPECT_EQ(only_op(*f, op_id::array_load).attrs, (std::vector<std::int64_t>{0}));
}

TEST(TyperArrays, Float16LoadsFloat16AndComputesInFloat32) {
  env e;
  auto f = kernel(e, "def k(a):\n    x = a[0]\n    y = a[0] + a[1]\n    a[2] = y\n", {"array(float16, 1d, C)"});
  EXPECT_EQ(var_type(*f, "x"), "float16");
  EXPECT_EQ(var_type(*f, "y"), "float16");
  for (const expr* l : ops_of(*f, op_id::array_load)) {
    EXPECT_EQ(l->ty->str(), "float16");
  }
  EXPECT_EQ(operand_types(*f, only_op(*f, op_id::array_store))[1], "float16");
}

TEST(TyperArrays, StoresConvertUnsafely) {
  env e;
  auto f = kernel(e, "def k(a, z):\n    a[0] = z\n    a[1] = 2.7\n", {"array(int32, 1d, C)", "complex128"});
  auto stores = ops_of(*f, op_id::array_store);
  EXPECT_EQ(operand_types(*f, *stores[0])[1], "int32");
  EXPECT_EQ(f->at(stores[1]->operands[1]).value.i, 2);  // truncated while typing
}

TEST(TyperArrays, StoreErrors) {
  env e;
  std::string ro = "def k(a):\n    a[0] = 1.0\n";
  EXPECT_TYPING_ERROR(e.fail(ro, {"array(float32, 1d, C, readonly)"}),
                      "cannot assign to an element of a read-only array (array(float32, 1d, C, readonly))", at(ro, 2, "a[0]"));
  std::string view = "def k(a):\n    r = a[0]\n    r[1] = 1.0\n";
  EXPECT_TYPING_ERROR(e.fail(view, {"array(float32, 2d, C, readonly)"}), "read-only array", at(view, 3, "r[1]"));
  std::string slice = "def k(a):\n    a[1:] = 0.0\n";
  EXPECT_TYPING_ERROR(e.fail(slice, {f32}), "Unsupported: assignment to a slice or a sub-array of array(float32, 1d, C)",
                      at(slice, 2, "a[1:]"));
  std::string row = "def k(a):\n    a[0] = 0.0\n";
  EXPECT_TYPING_ERROR(e.fail(row, {m32}), "Unsupported: assignment to a slice or a sub-array", at(row, 2, "a[0]"));
  std::string arr = "def k(a, b):\n    a[0] = b\n";
  EXPECT_TYPING_ERROR(e.fail(arr, {f32, f32}), "cannot store array(float32, 1d, C) in an element of array(float32, 1d, C)",
                      at(arr, 2, "a[0]"));
  std::string tup = "def k(a):\n    t = (a[0], a[1])\n    t[0] = 1.0\n";
  EXPECT_TYPING_ERROR(e.fail(tup, {f32}), "tuples are immutable", at(tup, 3, "t[0]"));
  std::string scalar = "def k(a, x):\n    x[0] = 1\n";
  EXPECT_TYPING_ERROR(e.fail(scalar, {f32, "int32"}), "a value of type int32 does not support item assignment",
                      at(scalar, 2, "x[0]"));
  std::string sub = "def k(a, x):\n    y = x[0]\n";
  EXPECT_TYPING_ERROR(e.fail(sub, {f32, "int32"}), "a value of type int32 cannot be subscripted", at(sub, 2, "x[0]"));
}

TEST(TyperArrays, ZeroDimensional) {
  env e;
  auto f = kernel(e, "def k(a):\n    a[()] = a[()] + 1\n", {"array(float64, 0d, C)"});
  EXPECT_EQ(only_op(*f, op_id::array_load).operands.size(), 1u);
  EXPECT_EQ(only_op(*f, op_id::array_store).operands.size(), 2u);
}

TEST(TyperArrays, WritesFollowAliases) {
  env e;
  auto m = e.infer(R"(def k(a, b, c, d):
    r = b[0]
    r[1] = a[0, 0]
    x = c
    y = x
    y[0] = 1.0
    z = d[0, 0]
)",
                   {m32, m32, f32, m32});
  EXPECT_EQ(m.functions[0].writes_arg, (std::vector<bool>{false, true, true, false}));
  auto t = e.infer("def k(a, b):\n    t = (a, b)\n    u = t[1]\n    u[0] = 0.0\n", {f32, f32});
  EXPECT_EQ(t.functions[0].writes_arg, (std::vector<bool>{true, true}));  // a tuple's elements alias it as a whole
  auto atom = e.infer("def k(a, b):\n    cuda.atomic.add(b, 0, a[0])\n", {f32, f32});
  EXPECT_EQ(atom.functions[0].writes_arg, (std::vector<bool>{false, true}));
}

TEST(TyperArrays, ArrayVariablesJoinLayouts) {
  env e;
  // A C array and an A view in one variable: the variable is A, the C one
  // enters through a whole-array view.
  auto f = kernel(e, R"(def k(a, b, c):
    v = b
    if c:
        v = a[:, 1]
    v[0] = 1.0
)",
                  {m32, f32, "bool"});
  EXPECT_EQ(var_type(*f, "v"), "array(float32, 1d, A)");
  const expr& whole = *ops_of(*f, op_id::array_view).at(0);
  EXPECT_EQ(whole.attrs, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(whole.ty->str(), "array(float32, 1d, A)");
  EXPECT_EQ(f->at(whole.operands[0]).ty->str(), f32);
  EXPECT_EQ(ops_of(*f, op_id::array_view).size(), 2u);
  std::string dims = "def k(a, b, c):\n    v = a\n    if c:\n        v = b\n";
  EXPECT_TYPING_ERROR(e.fail(dims, {m32, f32, "bool"}),
                      "variable 'v' is assigned values of types array(float32, 2d, C) and array(float32, 1d, C), which have no common type",
                      at(dims, 4, "v"));
  std::string ro = "def k(a, b, c):\n    v = a\n    if c:\n        v = b\n    v[0] = 1.0\n";
  EXPECT_TYPING_ERROR(e.fail(ro, {f32, "array(float32, 1d, C, readonly)", "bool"}),
                      "cannot assign to an element of a read-only array", at(ro, 5, "v[0]"));
}
