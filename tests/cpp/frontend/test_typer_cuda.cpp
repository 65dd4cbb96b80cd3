// The typer on cuda.*: coordinates, grid helpers, barriers, shared, local
// and constant arrays, atomics and integer intrinsics.
#include "typer_support.hpp"

using namespace typer_test;

namespace {

std::shared_ptr<function> kernel(env& e, const std::string& src, const std::vector<std::string>& args) {
  return e.infer(src, args).functions.at(0).ir;
}

global_value const_array_global(const std::string& typestr, std::vector<std::int64_t> shape, std::size_t itemsize) {
  global_value g;
  g.k = global_value::kind::const_array;
  g.name = "TABLE";
  g.dtype = typestr;
  g.shape = shape;
  std::size_t n = 1;
  for (auto s : shape) n *= static_cast<std::size_t>(s);
  g.bytes.assign(n * itemsize, 0);
  return g;
}

const char* const f32 = "array(float32, 1d, C)";

}  // namespace

TEST(TyperCuda, ThreadCoordinates) {
  env e;
  auto f = kernel(e, R"(def k(a):
    a[0] = cuda.threadIdx.x + cuda.blockIdx.y + cuda.blockDim.z + cuda.gridDim.x
)",
                  {"array(int32, 1d, C)"});
  const expr& t = only_op(*f, "cuda.threadIdx.x");
  EXPECT_EQ(t.attrs, (std::vector<std::int64_t>{intrinsic_index("cuda.threadIdx.x")})) << "the registry index alone";
  EXPECT_EQ(t.ty->str(), "int32");
  EXPECT_EQ(only_op(*f, "cuda.blockIdx.y").ty->str(), "int32");
  EXPECT_EQ(only_op(*f, "cuda.blockDim.z").ty->str(), "int32");
  EXPECT_EQ(only_op(*f, "cuda.gridDim.x").ty->str(), "int32");
  for (const expr* a : ops_of(*f, op_id::add)) {
    EXPECT_EQ(a->ty->str(), "int64");
  }
  // Coordinates are never negative: indexing with them needs no wraparound.
  auto g = kernel(e, "def k(a):\n    a[cuda.threadIdx.x] = 1.0\n", {f32});
  EXPECT_EQ(only_op(*g, op_id::array_store).attrs, (std::vector<std::int64_t>{0}));
}

TEST(TyperCuda, Grid) {
  env e;
  auto f = kernel(e, "def k(a):\n    i = cuda.grid(1)\n", {f32});
  EXPECT_EQ(var_type(*f, "i"), "int64");
  EXPECT_EQ(f->dump(),
            "def k(a: array(float32, 1d, C)):\n"
            "    i :: int64 = add(mul(cast(cuda.blockIdx.x() :: int32) :: int64, cast(cuda.blockDim.x() :: int32) :: int64) "
            ":: int64, cast(cuda.threadIdx.x() :: int32) :: int64) :: int64\n");
  auto g = kernel(e, "def k(a):\n    x, y = cuda.grid(2)\n    t = cuda.grid(3)\n", {f32});
  EXPECT_EQ(var_type(*g, "x"), "int64");
  EXPECT_EQ(var_type(*g, "t"), "UniTuple(int64 x 3)");
  EXPECT_EQ(ops_of(*g, "cuda.threadIdx.x").size() + ops_of(*g, "cuda.threadIdx.y").size() +
                ops_of(*g, "cuda.threadIdx.z").size(),
            5u);
  auto h = kernel(e, "def k(a):\n    s = cuda.gridsize(1)\n", {f32});
  const expr& m = only_op(*h, op_id::mul);
  EXPECT_EQ(operand_types(*h, m), (std::vector<std::string>{"int64", "int64"}));
  EXPECT_EQ(only_op(*h, "cuda.gridDim.x").ty->str(), "int32");
  EXPECT_EQ(var_type(*kernel(e, "def k(a):\n    s = cuda.gridsize(2)\n", {f32}), "s"), "UniTuple(int64 x 2)");
  // The grid index is non-negative: a[i] needs no wraparound.
  auto s = kernel(e, "def k(a):\n    i = cuda.grid(1)\n    if i < a.size:\n        a[i] = 0\n", {f32});
  EXPECT_EQ(only_op(*s, op_id::array_store).attrs, (std::vector<std::int64_t>{0}));
  std::string bad = "def k(a, n):\n    i = cuda.grid(4)\n    j = cuda.grid(n)\n";
  EXPECT_TYPING_ERROR(e.fail(bad, {f32, "int64"}), "No implementation of cuda.grid for (int64,): the number of dimensions must be a constant 1, 2 or 3",
                      at(bad, 2, "cuda.grid"));
}

TEST(TyperCuda, WarpsizeAndLaneid) {
  env e;
  auto f = kernel(e, "def k(a):\n    w = cuda.warpsize\n    l = cuda.laneid\n    x = cuda.threadIdx.x % cuda.warpsize\n", {f32});
  EXPECT_EQ(var_type(*f, "w"), "int64");
  EXPECT_EQ(only_op(*f, "cuda.laneid").ty->str(), "int32");
  EXPECT_EQ(var_type(*f, "x"), "int64");  // 32 is a Python int
}

TEST(TyperCuda, Barriers) {
  env e;
  auto m = e.infer("def k(a):\n    cuda.syncthreads()\n", {f32});
  EXPECT_TRUE(m.functions[0].uses_barrier);
  const function& f = *m.functions[0].ir;
  ASSERT_EQ(f.body.size(), 1u);
  EXPECT_EQ(f.at_stmt(f.body[0]).kind, stmt_kind::expression);
  EXPECT_EQ(only_op(f, "cuda.syncthreads").ty->str(), "none");
  EXPECT_FALSE(e.infer("def k(a):\n    a[0] = 1.0\n", {f32}).functions[0].uses_barrier);
  auto c = e.infer("def k(a):\n    n = cuda.syncthreads_count(a[0] > 0)\n", {f32});
  EXPECT_TRUE(c.functions[0].uses_barrier);
  const function& cf = *c.functions[0].ir;
  EXPECT_EQ(operand_types(cf, only_op(cf, "cuda.syncthreads_count")), (std::vector<std::string>{"int32"}));
  EXPECT_EQ(var_type(cf, "n"), "int32");
  auto o = e.infer("def k(a):\n    n = cuda.syncthreads_or(a[0])\n", {f32});
  const function& of = *o.functions[0].ir;
  const expr& pred = of.at(only_op(of, "cuda.syncthreads_or").operands[0]);
  EXPECT_EQ(pred.kind, expr_kind::cast);  // float32 -> bool (truth) -> int32
  EXPECT_EQ(of.at(pred.operands[0]).ty->str(), "bool");
  auto w = e.infer("def k(a):\n    cuda.syncwarp()\n    cuda.syncwarp(0xFF)\n", {f32});
  EXPECT_TRUE(w.functions[0].uses_barrier);
  auto warps = ops_of(*w.functions[0].ir, "cuda.syncwarp");
  ASSERT_EQ(warps.size(), 2u);
  EXPECT_EQ(w.functions[0].ir->at(warps[0]->operands[0]).value.i, 0xFFFFFFFF);
  EXPECT_EQ(w.functions[0].ir->at(warps[1]->operands[0]).ty->str(), "uint32");
  auto t = e.infer("def k(a):\n    cuda.threadfence()\n    cuda.threadfence_block()\n    cuda.threadfence_system()\n", {f32});
  EXPECT_FALSE(t.functions[0].uses_barrier);
  EXPECT_EQ(ops_of(*t.functions[0].ir, "cuda.threadfence").size(), 1u);
  EXPECT_EQ(ops_of(*t.functions[0].ir, "cuda.threadfence_block").size(), 1u);
  EXPECT_EQ(ops_of(*t.functions[0].ir, "cuda.threadfence_system").size(), 1u);
  std::string bad = "def k(a):\n    cuda.syncthreads(1)\n";
  EXPECT_TYPING_ERROR(e.fail(bad, {f32}), "No implementation of cuda.syncthreads for (int64,)", at(bad, 2, "cuda"));
}

TEST(TyperCuda, SharedArrays) {
  env e;
  auto f = kernel(e, R"(def k(a):
    s = cuda.shared.array(16, float32)
    t = cuda.shared.array((4, 8), dtype=np.float64)
    u = cuda.shared.array(shape=(32,), dtype=np.int32)
    s[cuda.threadIdx.x] = a[0]
)",
                  {f32});
  EXPECT_EQ(var_type(*f, "s"), "array(float32, 1d, C, shared)");
  EXPECT_EQ(var_type(*f, "t"), "array(float64, 2d, C, shared)");
  EXPECT_EQ(var_type(*f, "u"), "array(int32, 1d, C, shared)");
  auto sh = ops_of(*f, op_id::shared_array);
  ASSERT_EQ(sh.size(), 3u);
  EXPECT_EQ(sh[0]->attrs, (std::vector<std::int64_t>{16}));
  EXPECT_EQ(sh[1]->attrs, (std::vector<std::int64_t>{4, 8}));
  EXPECT_EQ(sh[2]->attrs, (std::vector<std::int64_t>{32}));
  // Storing to a shared array writes no argument.
  EXPECT_EQ(e.infer("def k(a):\n    s = cuda.shared.array(4, float32)\n    s[0] = a[0]\n", {f32}).functions[0].writes_arg,
            (std::vector<bool>{false}));
}

TEST(TyperCuda, SharedArrayShapesFromGlobalsAndDynamic) {
  env e;
  e.globals["TPB"] = int_global(32);
  e.globals["SHAPE"] = tuple_global({int_global(8), int_global(4)});
  auto f = kernel(e, R"(def k(a):
    s = cuda.shared.array(TPB * 2, float32)
    t = cuda.shared.array(SHAPE, np.int64)
    d = cuda.shared.array(0, float32)
    l = cuda.local.array(3, a.dtype)
)",
                  {f32});
  auto sh = ops_of(*f, op_id::shared_array);
  ASSERT_EQ(sh.size(), 3u);
  EXPECT_EQ(sh[0]->attrs, (std::vector<std::int64_t>{64}));
  EXPECT_EQ(sh[1]->attrs, (std::vector<std::int64_t>{8, 4}));
  EXPECT_EQ(sh[2]->attrs, (std::vector<std::int64_t>{0}));  // the launch's dynamic shared memory
  EXPECT_EQ(var_type(*f, "l"), "array(float32, 1d, C, local)");
}

TEST(TyperCuda, SharedArrayErrors) {
  env e;
  std::string var = "def k(a, n):\n    s = cuda.shared.array(n, float32)\n";
  EXPECT_TYPING_ERROR(e.fail(var, {f32, "int64"}),
                      "No implementation of cuda.shared.array for (int64, dtype(float32)): the shape of cuda.shared.array "
                      "must be a constant integer or a tuple of them",
                      at(var, 2, "cuda"));
  std::string neg = "def k(a):\n    s = cuda.shared.array(-4, float32)\n";
  EXPECT_TYPING_ERROR(e.fail(neg, {f32}), "an extent cannot be negative", at(neg, 2, "cuda"));
  std::string zero = "def k(a):\n    s = cuda.shared.array((0, 4), float32)\n";
  EXPECT_TYPING_ERROR(e.fail(zero, {f32}), "only a 1-d shared array may have extent 0", at(zero, 2, "cuda"));
  std::string dt = "def k(a):\n    s = cuda.shared.array(4, 1.5)\n";
  EXPECT_TYPING_ERROR(e.fail(dt, {f32}), "the dtype of cuda.shared.array must be a scalar type such as numpy.float32",
                      at(dt, 2, "cuda"));
  std::string kw = "def k(a):\n    s = cuda.shared.array(4, float32, align=16)\n";
  EXPECT_TYPING_ERROR(e.fail(kw, {f32}), "unexpected keyword argument 'align'", at(kw, 2, "cuda"));
  std::string missing = "def k(a):\n    s = cuda.shared.array(4)\n";
  EXPECT_TYPING_ERROR(e.fail(missing, {f32}), "it takes (shape, dtype)", at(missing, 2, "cuda"));
  std::string local0 = "def k(a):\n    s = cuda.local.array(0, float32)\n";
  EXPECT_TYPING_ERROR(e.fail(local0, {f32}), "a local array's extents must be positive", at(local0, 2, "cuda"));
}

TEST(TyperCuda, ConstantArrays) {
  env e;
  e.globals["TABLE"] = const_array_global("<f4", {4, 2}, 4);
  auto f = kernel(e, R"(def k(a):
    c = cuda.const.array_like(TABLE)
    a[0] = c[1, 1] + TABLE[0, 0]
)",
                  {f32});
  EXPECT_EQ(var_type(*f, "c"), "array(float32, 2d, C, readonly, constant)");
  auto cs = ops_of(*f, op_id::const_array);
  ASSERT_EQ(cs.size(), 2u);
  EXPECT_EQ(cs[0]->attrs, (std::vector<std::int64_t>{static_cast<std::int64_t>(f->globals.size() - 1)}));
  EXPECT_EQ(f->globals[static_cast<std::size_t>(cs[0]->attrs[0])].k, global_value::kind::const_array);
  std::string store = "def k(a):\n    TABLE[0, 0] = 1.0\n";
  EXPECT_TYPING_ERROR(e.fail(store, {f32}), "cannot assign to an element of a constant array", at(store, 2, "TABLE"));
  std::string like = "def k(a):\n    c = cuda.const.array_like(a)\n";
  EXPECT_TYPING_ERROR(e.fail(like, {f32}), "No implementation of cuda.const.array_like for (array(float32, 1d, C),)",
                      at(like, 2, "cuda"));
}

TEST(TyperCuda, AtomicAdd) {
  env e;
  auto m = e.infer("def k(a, i, v):\n    old = cuda.atomic.add(a, i, v)\n", {"array(float32, 1d, C)", "uint32", "int32"});
  const function& f = *m.functions[0].ir;
  const expr& at = only_op(f, "cuda.atomic.add");
  EXPECT_EQ(at.ty->str(), "float32");
  EXPECT_EQ(operand_types(f, at), (std::vector<std::string>{"array(float32, 1d, C)", "float32", "int64"}));
  EXPECT_EQ(var_type(f, "old"), "float32");
  EXPECT_EQ(m.functions[0].writes_arg, (std::vector<bool>{true, false, false}));
  // A tuple index on a 2-d array; a shared array.
  auto g = kernel(e, R"(def k(a):
    s = cuda.shared.array((2, 2), np.int32)
    cuda.atomic.max(s, (0, 1), 5)
    cuda.atomic.sub(a, (1, 0), 1)
)",
                  {"array(uint64, 2d, C)"});
  EXPECT_EQ(operand_types(*g, only_op(*g, "cuda.atomic.max")),
            (std::vector<std::string>{"array(int32, 2d, C, shared)", "int32", "int64", "int64"}));
  EXPECT_EQ(only_op(*g, "cuda.atomic.sub").ty->str(), "uint64");
}

TEST(TyperCuda, AtomicNegativeIndicesCountFromTheEnd) {
  env e;
  auto f = kernel(e, "def k(a, i):\n    cuda.atomic.add(a, i, 1)\n    cuda.atomic.add(a, -1, 1)\n",
                  {"array(int32, 1d, C)", "int64"});
  auto adds = ops_of(*f, "cuda.atomic.add");
  ASSERT_EQ(adds.size(), 2u);
  // i may be negative: (i + shape) if i < 0 else i.
  const expr& idx = f->at(adds[0]->operands[2]);
  EXPECT_EQ(idx.kind, expr_kind::conditional);
  EXPECT_EQ(f->at(idx.operands[1]).op, op_id::add);
  // -1 is known negative: -1 + shape.
  const expr& last = f->at(adds[1]->operands[2]);
  EXPECT_EQ(last.op, op_id::add);
  EXPECT_EQ(f->at(last.operands[1]).op, op_id::array_shape);
}

TEST(TyperCuda, AtomicOperations) {
  env e;
  struct row {
    const char* call;
    const char* op;
    const char* array;
  } rows[] = {{"cuda.atomic.exch(a, 0, 1)", "cuda.atomic.exch", "array(float64, 1d, C)"},
              {"cuda.atomic.min(a, 0, 1)", "cuda.atomic.min", "array(int64, 1d, C)"},
              {"cuda.atomic.nanmin(a, 0, 1)", "cuda.atomic.nanmin", "array(float32, 1d, C)"},
              {"cuda.atomic.nanmax(a, 0, 1)", "cuda.atomic.nanmax", "array(float64, 1d, C)"},
              {"cuda.atomic.and_(a, 0, 1)", "cuda.atomic.and_", "array(uint32, 1d, C)"},
              {"cuda.atomic.or_(a, 0, 1)", "cuda.atomic.or_", "array(int32, 1d, C)"},
              {"cuda.atomic.xor(a, 0, 1)", "cuda.atomic.xor", "array(uint64, 1d, C)"},
              {"cuda.atomic.inc(a, 0, 10)", "cuda.atomic.inc", "array(uint32, 1d, C)"},
              {"cuda.atomic.dec(a, 0, 10)", "cuda.atomic.dec", "array(uint64, 1d, C)"}};
  for (const auto& r : rows) {
    auto f = kernel(e, std::string("def k(a):\n    x = ") + r.call + "\n", {r.array});
    const expr& x = only_op(*f, r.op);
    EXPECT_EQ(operand_types(*f, x)[1], f->at(x.operands[0]).ty->dtype->str()) << r.call;
  }
  auto c = kernel(e, "def k(a):\n    old = cuda.atomic.cas(a, 1, 0, 7)\n", {"array(int32, 1d, C)"});
  EXPECT_EQ(operand_types(*c, only_op(*c, "cuda.atomic.cas")),
            (std::vector<std::string>{"array(int32, 1d, C)", "int32", "int32", "int64"}));
  auto l = kernel(e, "def k(a):\n    old = cuda.atomic.compare_and_swap(a, 0, 7)\n", {"array(uint64, 1d, C)"});
  EXPECT_EQ(operand_types(*l, only_op(*l, "cuda.atomic.compare_and_swap")),
            (std::vector<std::string>{"array(uint64, 1d, C)", "uint64", "uint64", "int64"}));
}

TEST(TyperCuda, AtomicErrors) {
  env e;
  std::string src = "def k(a):\n    cuda.atomic.add(a, 0, 1)\n";
  EXPECT_TYPING_ERROR(e.fail(src, {"array(int8, 1d, C)"}),
                      "No implementation of cuda.atomic.add for (array(int8, 1d, C), int64, int64): cuda.atomic.add supports "
                      "int32, uint32, int64, uint64, float32 and float64 arrays",
                      at(src, 2, "cuda"));
  EXPECT_TYPING_ERROR(e.fail(src, {"array(float32, 1d, C, readonly)"}), "the array is read-only", at(src, 2, "cuda"));
  EXPECT_TYPING_ERROR(e.fail(src, {"array(float32, 2d, C)"}), "cuda.atomic.add needs 2 indices for array(float32, 2d, C), got 1",
                      at(src, 2, "cuda"));
  std::string inc = "def k(a):\n    cuda.atomic.inc(a, 0, 1)\n";
  EXPECT_TYPING_ERROR(e.fail(inc, {"array(int32, 1d, C)"}), "cuda.atomic.inc supports uint32 and uint64 arrays", at(inc, 2, "cuda"));
  std::string bits = "def k(a):\n    cuda.atomic.xor(a, 0, 1)\n";
  EXPECT_TYPING_ERROR(e.fail(bits, {"array(float32, 1d, C)"}), "supports int32, uint32, int64 and uint64 arrays",
                      at(bits, 2, "cuda"));
  std::string local = "def k(a):\n    l = cuda.local.array(4, np.int32)\n    cuda.atomic.add(l, 0, 1)\n";
  EXPECT_TYPING_ERROR(e.fail(local, {"array(float32, 1d, C)"}), "atomics work on global and shared arrays", at(local, 3, "cuda"));
  std::string args = "def k(a):\n    cuda.atomic.add(a, 0)\n";
  EXPECT_TYPING_ERROR(e.fail(args, {"array(int32, 1d, C)"}), "it takes (ary, idx, val)", at(args, 2, "cuda"));
  std::string scalar = "def k(a):\n    cuda.atomic.add(a[0], 0, 1)\n";
  EXPECT_TYPING_ERROR(e.fail(scalar, {"array(int32, 1d, C)"}), "the first argument must be an array", at(scalar, 2, "cuda"));
  std::string fidx = "def k(a):\n    cuda.atomic.add(a, 0.5, 1)\n";
  EXPECT_TYPING_ERROR(e.fail(fidx, {"array(int32, 1d, C)"}), "array indices must be integers, got float64", at(fidx, 2, "cuda"));
  std::string op = "def k(a):\n    cuda.atomic.mul(a, 0, 1)\n";
  EXPECT_TYPING_ERROR(e.fail(op, {"array(int32, 1d, C)"}), "module 'cuda.atomic' has no attribute 'mul'", at(op, 2, "cuda"));
}

TEST(TyperCuda, IntegerIntrinsicsAndFma) {
  env e;
  auto f = kernel(e, "def k(a, x):\n    p = cuda.popc(x)\n    b = cuda.brev(x)\n    c = cuda.clz(x)\n    f = cuda.ffs(x)\n",
                  {f32, "uint64"});
  // numba-cuda's candidates: popc and clz keep the type, ffs gives uint32, brev uint32 or uint64.
  EXPECT_EQ(var_type(*f, "p"), "uint64");
  EXPECT_EQ(var_type(*f, "b"), "uint64");
  EXPECT_EQ(var_type(*f, "c"), "uint64");
  EXPECT_EQ(var_type(*f, "f"), "uint32");
  EXPECT_EQ(operand_types(*f, only_op(*f, "cuda.ffs")), (std::vector<std::string>{"uint64"}));
  auto g = kernel(e, "def k(a, x, y):\n    r = cuda.fma(x, y, 1.0)\n", {f32, "float32", "float32"});
  // 1.0 is a float64: Numba's fma(float64, float64, float64) case.
  EXPECT_EQ(operand_types(*g, only_op(*g, op_id::fma)), (std::vector<std::string>{"float64", "float64", "float64"}));
  EXPECT_EQ(var_type(*kernel(e, "def k(a, x):\n    r = cuda.fma(x, x, x)\n", {f32, "int32"}), "r"), "float64");
  std::string bad = "def k(a):\n    p = cuda.popc(a[0])\n";
  EXPECT_TYPING_ERROR(e.fail(bad, {f32}), "No implementation of cuda.popc for (float32,): it takes an integer", at(bad, 2, "cuda"));
}

TEST(TyperCuda, UnknownNames) {
  env e;
  std::string attr = "def k(a):\n    x = cuda.foo\n";
  EXPECT_TYPING_ERROR(e.fail(attr, {f32}), "module 'cuda' has no attribute 'foo'", at(attr, 2, "cuda"));
  std::string dim = "def k(a):\n    x = cuda.threadIdx.w\n";
  EXPECT_TYPING_ERROR(e.fail(dim, {f32}), "module 'cuda.threadIdx' has no attribute 'w'", at(dim, 2, "cuda"));
  // A module held by a variable must stay that module.
  std::string value = "def k(a):\n    x = cuda.threadIdx\n    x = cuda.blockIdx\n";
  EXPECT_TYPING_ERROR(e.fail(value, {f32}), "variable 'x' is assigned Module(cuda.threadIdx) and Module(cuda.blockIdx)",
                      at(value, 3, "x"));
  std::string call = "def k(a):\n    x = cuda.threadIdx()\n";
  EXPECT_TYPING_ERROR(e.fail(call, {f32}), "module 'cuda.threadIdx' is not callable", at(call, 2, "cuda"));
}

TEST(TyperCuda, NamesTheWalkerMaySpellOtherwise) {
  env e;
  // `from numba import cuda`, `from cuforge.cuda import grid`.
  e.globals["ncuda"] = module_global("numba.cuda");
  e.globals["grid"] = function_global("cuforge.cuda.grid");
  e.globals["tid"] = module_global("cuforge.cuda.threadIdx");
  auto f = kernel(e, "def k(a):\n    i = grid(1)\n    j = tid.x\n    ncuda.syncthreads()\n", {f32});
  EXPECT_EQ(var_type(*f, "i"), "int64");
  EXPECT_EQ(var_type(*f, "j"), "int32");
  EXPECT_EQ(ops_of(*f, "cuda.syncthreads").size(), 1u);
}

TEST(TyperCuda, KernelSideNamesComeFromTheRegistry) {
  env e;
  // A row's typing runs; a name without a row is refused at the user's line.
  auto m = e.infer("def k(a):\n    a[0] = cuda.popc(a[1])\n", {"array(uint32, 1d, C)"});
  const expr& popc = only_op(*m.functions[0].ir, "cuda.popc");
  EXPECT_EQ(popc.ty->str(), "uint32");
  EXPECT_FALSE(m.functions[0].uses_barrier);
  std::string src = "def k(a):\n    a[0] = cuda.popcount(a[1])\n";
  EXPECT_TYPING_ERROR(e.fail(src, {"array(uint32, 1d, C)"}), "module 'cuda' has no attribute 'popcount'",
                      at(src, 2, "cuda"));
  // cpu_needs marks the kernel for the cpu backend's fibers.
  EXPECT_TRUE(e.infer("def k(a):\n    cuda.syncwarp()\n", {"array(uint32, 1d, C)"}).functions[0].uses_barrier);
  // The dump names the row, not its index.
  EXPECT_NE(m.functions[0].ir->dump().find("cuda.popc(array_load("), std::string::npos) << m.functions[0].ir->dump();
}
