// Code generation: kernels built as typed IR by hand (what the typer will
// produce), each compiled to PTX that ptxas must accept and to host code run
// on the cpu backend (PTX on the cuda backend) against results computed here.
// This file: grid-stride loops, 2-D indexing, control flow, device
// functions, tuples and casts.
#include "test_codegen_support.hpp"

#include <cmath>
#include <limits>

using namespace cuforge::testing::cg;
using cuforge::dim3;
using cuforge::testing::device_buffer;

namespace {

const type* f32_1d(type_context& tc) { return tc.array(tc.float32(), 1, array_layout::c); }

// for i in range(cuda.grid(1), a.shape[0], cuda.gridsize(1)): out[i] = a[i] + b[i]
typed_module vector_add(type_context& tc) {
  typed_builder k(tc, "vector_add");
  var_id a = k.param("a", f32_1d(tc));
  var_id b = k.param("b", f32_1d(tc));
  var_id out = k.param("out", f32_1d(tc));
  var_id i = k.local("i", tc.int64());
  auto body = k.eval(k.store(k.v(out), k.bin(op_id::add, k.load(k.v(a), {k.v(i)}), k.load(k.v(b), {k.v(i)})), {k.v(i)}));
  auto loop = k.for_range(i, k.grid(0), k.shape(k.v(a), 0), k.gridsize(0), {body});
  return module_of({k.finish({loop})});
}

}  // namespace

TEST(CodegenKernels, VectorAddGridStride) {
  type_context tc;
  typed_module m = vector_add(tc);
  expect_compiles(m);
  const std::size_t n = 10007;  // more than the grid: every thread strides
  std::vector<float> a(n), b(n);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i) * 0.5f;
    b[i] = 3.0f - static_cast<float>(i);
  }
  device_buffer<float> da(n), db(n), dout(n);
  da.upload(a);
  db.upload(b);
  dout.upload(std::vector<float>(n, -1.0f));
  auto N = static_cast<std::int64_t>(n);
  run(m, dim3(8), dim3(64),
      slots().array(da.get(), {N}, 4).array(db.get(), {N}, 4).array(dout.get(), {N}, 4));
  auto out = dout.download();
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], a[i] + b[i]) << "at " << i;
}

TEST(CodegenKernels, VectorAddPtxIsAKernelOfSlots) {
  type_context tc;
  ptx_result r = compile_ptx(vector_add(tc), {});
  EXPECT_EQ(r.entry, "vector_add");
  EXPECT_NE(r.ptx.find(".visible .entry vector_add("), std::string::npos) << r.ptx;
  EXPECT_NE(r.ptx.find(".target sm_90"), std::string::npos);
  // Three 1-d arrays: 3 x (1 + 2) slots, each a .u64 parameter.
  EXPECT_NE(r.ptx.find("vector_add_param_8"), std::string::npos);
  EXPECT_EQ(r.ptx.find("vector_add_param_9"), std::string::npos);
  EXPECT_NE(r.ptx.find(".param .u64 vector_add_param_0"), std::string::npos);
  EXPECT_NE(r.ptx.find("%tid.x"), std::string::npos);
  EXPECT_NE(r.ptx.find("ld.global"), std::string::npos);
  EXPECT_NE(r.ptx.find("st.global"), std::string::npos);
  EXPECT_EQ(r.ptx.find("__nv_"), std::string::npos);
}

// A 2-D grid over an int32 matrix:
//   r, c = cuda.grid(2)[1], cuda.grid(2)[0]
//   if r < x.shape[0] and c < x.shape[1]:
//       if x[r, c] % 2 == 0: x[r, c] += 1
//       else: x[r, c] = -x[r, c]
TEST(CodegenKernels, Increment2DWithConditional) {
  type_context tc;
  typed_builder k(tc, "inc2d");
  const type* mat = tc.array(tc.int32(), 2, array_layout::c);
  var_id x = k.param("x", mat);
  var_id r = k.local("r", tc.int64());
  var_id c = k.local("c", tc.int64());
  auto s1 = k.assign(r, k.grid(1));
  auto s2 = k.assign(c, k.grid(0));
  auto inside = k.logical(true, k.cmp(op_id::lt, k.v(r), k.shape(k.v(x), 0)), k.cmp(op_id::lt, k.v(c), k.shape(k.v(x), 1)));
  auto even = k.cmp(op_id::eq, k.bin(op_id::mod, k.load(k.v(x), {k.v(r), k.v(c)}), k.i32(2)), k.i32(0));
  auto inc = k.eval(k.store(k.v(x), k.bin(op_id::add, k.load(k.v(x), {k.v(r), k.v(c)}), k.i32(1)), {k.v(r), k.v(c)}));
  auto negate = k.eval(k.store(k.v(x), k.un(op_id::neg, k.load(k.v(x), {k.v(r), k.v(c)})), {k.v(r), k.v(c)}));
  auto s3 = k.if_(inside, {k.if_(even, {inc}, {negate})});
  typed_module m = module_of({k.finish({s1, s2, s3})});
  expect_compiles(m);

  const std::int64_t rows = 37, cols = 53;
  std::vector<std::int32_t> v(static_cast<std::size_t>(rows * cols));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int32_t>(i) - 100;
  device_buffer<std::int32_t> d(v.size());
  d.upload(v);
  run(m, dim3(4, 3), dim3(16, 16), slots().array(d.get(), {rows, cols}, 4));
  auto out = d.download();
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::int32_t want = v[i] % 2 == 0 ? v[i] + 1 : -v[i];
    ASSERT_EQ(out[i], want) << "at " << i;
  }
}

// One thread computes loop results into out[]:
//   out[0]: sum of range(10, -3, -2)
//   out[1]: for i in range(100): continue on i % 3 == 0, break after 20, sum
//   out[2]: for i in range(5): pass / else: 1
//   out[3]: for i in range(5): break at 2 / else: 100 (not run) -> i
//   out[4]: sum of range(n, 0, step) with a run-time negative step
//   out[5]: iterations of range(0, 10, zero) with a run-time zero step
//   out[6]: iterations of range(MAX - 5, MAX, 2), no overflow
//   out[7]: the loop variable after range(3)
//   out[8]: iterations of an int8 range(-128, 127, 100)
//   out[9]: while j < 50: j += 7 (continue when j == 14, break when j > 40) / else adds 1000
//   out[10]: while j < 5: j += 1 / else: out[10] = 1000 + j
//   out[11]: nested: break out of the inner loop only
TEST(CodegenKernels, LoopsBreakContinueElseAndSteps) {
  type_context tc;
  typed_builder k(tc, "loops");
  const type* i64 = tc.int64();
  var_id out = k.param("out", tc.array(i64, 1, array_layout::c));
  var_id step = k.param("step", i64);
  var_id zero = k.param("zero", i64);
  var_id i = k.local("i", i64);
  var_id j = k.local("j", i64);
  var_id s = k.local("s", i64);
  var_id b8 = k.local("b8", tc.int8());
  auto set = [&](int slot, expr_id value) { return k.eval(k.store(k.v(out), value, {k.i64(slot)})); };
  auto add_s = [&](expr_id x) { return k.assign(s, k.bin(op_id::add, k.v(s), x)); };
  std::vector<stmt_id> body;
  body.push_back(k.assign(s, k.i64(0)));
  body.push_back(k.for_range(i, k.i64(10), k.i64(-3), k.i64(-2), {add_s(k.v(i))}));
  body.push_back(set(0, k.v(s)));
  body.push_back(k.assign(s, k.i64(0)));
  body.push_back(k.for_range(i, k.i64(0), k.i64(100), k.i64(1),
                             {k.if_(k.cmp(op_id::eq, k.bin(op_id::mod, k.v(i), k.i64(3)), k.i64(0)), {k.cont()}),
                              k.if_(k.cmp(op_id::gt, k.v(i), k.i64(20)), {k.brk()}), add_s(k.v(i))}));
  body.push_back(set(1, k.v(s)));
  body.push_back(k.for_range(i, k.i64(0), k.i64(5), k.i64(1), {}, {set(2, k.i64(1))}));
  body.push_back(k.for_range(i, k.i64(0), k.i64(5), k.i64(1), {k.if_(k.cmp(op_id::eq, k.v(i), k.i64(2)), {k.brk()})},
                             {set(3, k.i64(100))}));
  body.push_back(k.if_(k.cmp(op_id::ne, k.load(k.v(out), {k.i64(3)}), k.i64(100)), {set(3, k.v(i))}));
  body.push_back(k.assign(s, k.i64(0)));
  body.push_back(k.for_range(i, k.i64(10), k.i64(0), k.v(step), {add_s(k.v(i))}));
  body.push_back(set(4, k.v(s)));
  body.push_back(k.assign(s, k.i64(0)));
  body.push_back(k.for_range(i, k.i64(0), k.i64(10), k.v(zero), {add_s(k.i64(1))}));
  body.push_back(set(5, k.v(s)));
  body.push_back(k.assign(s, k.i64(0)));
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  body.push_back(k.for_range(i, k.i64(max - 5), k.i64(max), k.i64(2), {add_s(k.i64(1))}));
  body.push_back(set(6, k.v(s)));
  body.push_back(k.for_range(i, k.i64(0), k.i64(3), k.i64(1), {}));
  body.push_back(set(7, k.v(i)));
  body.push_back(k.assign(s, k.i64(0)));
  body.push_back(k.for_range(b8, k.integer(-128, tc.int8()), k.integer(127, tc.int8()), k.integer(100, tc.int8()),
                             {add_s(k.i64(1))}));
  body.push_back(set(8, k.v(s)));
  body.push_back(k.assign(j, k.i64(0)));
  body.push_back(k.assign(s, k.i64(0)));
  body.push_back(k.while_(k.cmp(op_id::lt, k.v(j), k.i64(50)),
                          {k.assign(j, k.bin(op_id::add, k.v(j), k.i64(7))),
                           k.if_(k.cmp(op_id::eq, k.v(j), k.i64(14)), {k.cont()}),
                           k.if_(k.cmp(op_id::gt, k.v(j), k.i64(40)), {k.brk()}), add_s(k.v(j))},
                          {add_s(k.i64(1000))}));
  body.push_back(set(9, k.v(s)));
  body.push_back(k.assign(j, k.i64(0)));
  body.push_back(k.while_(k.cmp(op_id::lt, k.v(j), k.i64(5)), {k.assign(j, k.bin(op_id::add, k.v(j), k.i64(1)))},
                          {set(10, k.bin(op_id::add, k.i64(1000), k.v(j)))}));
  body.push_back(k.assign(s, k.i64(0)));
  body.push_back(k.for_range(i, k.i64(0), k.i64(4), k.i64(1),
                             {k.for_range(j, k.i64(0), k.i64(100), k.i64(1),
                                          {k.if_(k.cmp(op_id::ge, k.v(j), k.v(i)), {k.brk()}), add_s(k.i64(1))})}));
  body.push_back(set(11, k.v(s)));
  typed_module m = module_of({k.finish(body)});
  expect_compiles(m);

  device_buffer<std::int64_t> d(12);
  d.upload(std::vector<std::int64_t>(12, -7));
  run(m, dim3(1), dim3(1), slots().array(d.get(), {12}, 8).scalar<std::int64_t>(-3).scalar<std::int64_t>(0));
  auto o = d.download();
  EXPECT_EQ(o[0], 10 + 8 + 6 + 4 + 2 + 0 - 2);
  EXPECT_EQ(o[1], 1 + 2 + 4 + 5 + 7 + 8 + 10 + 11 + 13 + 14 + 16 + 17 + 19 + 20);
  EXPECT_EQ(o[2], 1);
  EXPECT_EQ(o[3], 2);
  EXPECT_EQ(o[4], 10 + 7 + 4 + 1);
  EXPECT_EQ(o[5], 0);
  EXPECT_EQ(o[6], 3);
  EXPECT_EQ(o[7], 2);
  EXPECT_EQ(o[8], 3);
  EXPECT_EQ(o[9], 7 + 21 + 28 + 35);  // 14 skipped, 42 breaks: no else
  EXPECT_EQ(o[10], 1005);
  EXPECT_EQ(o[11], 0 + 1 + 2 + 3);
}

// A device function called from the kernel, and one taking an array and
// returning a tuple:
//   def axpy(a, x, y): return a * x + y
//   def ends(v): return (v[0], v[v.shape[0] - 1])
//   kernel: out[i] = axpy(2.0, x[i], 1.0) + ends(x)[1]
TEST(CodegenKernels, DeviceFunctionCalls) {
  type_context tc;
  const type* f64 = tc.float64();
  const type* arr = tc.array(f64, 1, array_layout::c);
  typed_builder axpy(tc, "axpy", false);
  var_id a = axpy.param("a", f64);
  var_id xx = axpy.param("x", f64);
  var_id y = axpy.param("y", f64);
  typed_function axpy_f =
      axpy.finish({axpy.ret(axpy.bin(op_id::add, axpy.bin(op_id::mul, axpy.v(a), axpy.v(xx)), axpy.v(y)))}, f64);
  typed_builder ends(tc, "ends", false);
  const type* pair = tc.tuple({f64, f64});
  var_id v = ends.param("v", arr);
  auto last = ends.bin(op_id::sub, ends.shape(ends.v(v), 0), ends.i64(1));
  typed_function ends_f = ends.finish({ends.ret(ends.tuple({ends.load(ends.v(v), {ends.i64(0)}), ends.load(ends.v(v), {last})}))}, pair);

  typed_builder k(tc, "calls");
  var_id x = k.param("x", arr);
  var_id out = k.param("out", arr);
  var_id i = k.local("i", tc.int64());
  auto s1 = k.assign(i, k.grid(0));
  auto call1 = k.op(op_id::call_device, f64, {k.f64(2.0), k.load(k.v(x), {k.v(i)}), k.f64(1.0)}, {1});
  auto call2 = k.op(op_id::call_device, pair, {k.v(x)}, {2});
  auto value = k.bin(op_id::add, call1, k.op(op_id::tuple_get, f64, {call2}, {1}));
  auto s2 = k.if_(k.cmp(op_id::lt, k.v(i), k.shape(k.v(x), 0)), {k.eval(k.store(k.v(out), value, {k.v(i)}))});
  typed_module m = module_of({k.finish({s1, s2}), axpy_f, ends_f});
  expect_compiles(m);

  const std::size_t n = 300;
  std::vector<double> xs(n);
  for (std::size_t j = 0; j < n; ++j) xs[j] = 0.25 * static_cast<double>(j) - 7.0;
  device_buffer<double> dx(n), dout(n);
  dx.upload(xs);
  run(m, dim3(3), dim3(128), slots().array(dx.get(), {300}, 8).array(dout.get(), {300}, 8));
  auto o = dout.download();
  for (std::size_t j = 0; j < n; ++j) ASSERT_EQ(o[j], 2.0 * xs[j] + 1.0 + xs[n - 1]) << j;
}

// compile_ptx of a device function: Numba's device ABI, `i32 f(T* ret, args...)`.
TEST(CodegenKernels, DeviceFunctionAbiForPtx) {
  type_context tc;
  const type* f32 = tc.float32();
  typed_builder d(tc, "scale_add", false);
  var_id a = d.param("a", f32);
  var_id b = d.param("b", tc.int32());
  auto r = d.ret(d.bin(op_id::add, d.bin(op_id::mul, d.v(a), d.f32(2.0)), d.cast(d.v(b), f32)));
  typed_module m = module_of({d.finish({r}, f32)});
  ptx_result p = expect_ptx_assembles(m);
  EXPECT_EQ(p.entry, "scale_add");
  EXPECT_NE(p.ptx.find(".visible .func  (.param .b32 func_retval0) scale_add("), std::string::npos) << p.ptx;
  EXPECT_NE(p.ptx.find("st.f32"), std::string::npos) << p.ptx;  // the result through ret
  EXPECT_EQ(p.ptx.find(".entry"), std::string::npos);
  expect_valid_ir(m, true);
  EXPECT_THROW(compile_host(m, host_config()), cuforge::logic_error);
}

// Tuples: made, stored in variables, swapped (a, b = b, a through a
// temporary tuple as the typer unpacks it), taken apart.
TEST(CodegenKernels, Tuples) {
  type_context tc;
  typed_builder k(tc, "tuples");
  const type* f64 = tc.float64();
  const type* i64 = tc.int64();
  var_id out = k.param("out", tc.array(f64, 1, array_layout::c));
  var_id t = k.local("t", tc.tuple({i64, f64, tc.boolean()}));
  var_id a = k.local("a", i64);
  var_id b = k.local("b", i64);
  var_id tmp = k.local("$tmp", tc.tuple({i64, i64}));
  std::vector<stmt_id> body;
  body.push_back(k.assign(t, k.tuple({k.i64(7), k.f64(2.5), k.boolean(true)})));
  body.push_back(k.eval(k.store(k.v(out), k.cast(k.op(op_id::tuple_get, i64, {k.v(t)}, {0}), f64), {k.i64(0)})));
  body.push_back(k.eval(k.store(k.v(out), k.op(op_id::tuple_get, f64, {k.v(t)}, {1}), {k.i64(1)})));
  body.push_back(k.eval(k.store(k.v(out), k.cast(k.op(op_id::tuple_get, tc.boolean(), {k.v(t)}, {2}), f64), {k.i64(2)})));
  body.push_back(k.assign(a, k.i64(1)));
  body.push_back(k.assign(b, k.i64(2)));
  body.push_back(k.assign(tmp, k.tuple({k.v(b), k.v(a)})));
  body.push_back(k.assign(a, k.op(op_id::tuple_get, i64, {k.v(tmp)}, {0})));
  body.push_back(k.assign(b, k.op(op_id::tuple_get, i64, {k.v(tmp)}, {1})));
  body.push_back(k.eval(k.store(k.v(out), k.cast(k.v(a), f64), {k.i64(3)})));
  body.push_back(k.eval(k.store(k.v(out), k.cast(k.v(b), f64), {k.i64(4)})));
  // Tuple equality, and a conditional choosing between tuples.
  auto same = k.cmp(op_id::eq, k.v(tmp), k.tuple({k.i64(2), k.i64(1)}));
  body.push_back(k.eval(k.store(k.v(out), k.cast(same, f64), {k.i64(5)})));
  auto chosen = k.cond(k.cmp(op_id::gt, k.v(a), k.v(b)), k.tuple({k.f64(10.0), k.f64(11.0)}), k.tuple({k.f64(20.0), k.f64(21.0)}));
  body.push_back(k.eval(k.store(k.v(out), k.op(op_id::tuple_get, f64, {chosen}, {1}), {k.i64(6)})));
  typed_module m = module_of({k.finish(body)});
  expect_compiles(m);

  device_buffer<double> d(7);
  d.upload(std::vector<double>(7, -1.0));
  run(m, dim3(1), dim3(1), slots().array(d.get(), {7}, 8));
  auto o = d.download();
  EXPECT_EQ(o, (std::vector<double>{7.0, 2.5, 1.0, 2.0, 1.0, 1.0, 11.0}));
}

// Casts with Python/NumPy semantics, one per slot of an int64 and a float64 output.
TEST(CodegenKernels, Casts) {
  type_context tc;
  typed_builder k(tc, "casts");
  var_id io = k.param("io", tc.array(tc.int64(), 1, array_layout::c));
  var_id fo = k.param("fo", tc.array(tc.float64(), 1, array_layout::c));
  var_id h = k.param("h", tc.array(tc.float16(), 1, array_layout::c));
  var_id x = k.param("x", tc.float64());  // -2.7 at run time
  std::vector<stmt_id> body;
  int islot = 0, fslot = 0;
  auto iset = [&](expr_id value) { body.push_back(k.eval(k.store(k.v(io), k.cast(value, tc.int64()), {k.i64(islot++)}))); };
  auto fset = [&](expr_id value) { body.push_back(k.eval(k.store(k.v(fo), k.cast(value, tc.float64()), {k.i64(fslot++)}))); };
  iset(k.cast(k.v(x), tc.int64()));                                   // 0: trunc toward 0 -> -2
  iset(k.cast(k.bin(op_id::div, k.f64(0.0), k.f64(0.0)), tc.int64()));  // 1: nan -> the sign bit (cvt.rzi.s64.f64)
  iset(k.cast(k.f64(1e300), tc.int64()));                             // 2: saturates
  iset(k.cast(k.un(op_id::neg, k.f64(1.0)), tc.uint8()));             // 3: -1.0 -> uint8 0 (cvt.rzi clamps)
  iset(k.cast(k.f64(300.7), tc.int8()));                              // 4: 300 in 16 bits, truncated: 44
  iset(k.cast(k.boolean(true), tc.int32()));                          // 5: 1
  iset(k.cast(k.cast(k.f64(0.5), tc.boolean()), tc.int32()));         // 6: 0.5 is true
  iset(k.cast(k.cast(k.i64(0), tc.boolean()), tc.int32()));           // 7: 0 is false
  iset(k.cast(k.cplx({3.9, 8.0}, tc.complex128()), tc.int64()));      // 8: the real part -> 3
  iset(k.cast(k.integer(-1, tc.int32()), tc.uint32()));               // 9: 4294967295
  iset(k.cast(k.cast(k.f64(3e9), tc.uint32()), tc.int64()));          // 10: 3000000000
  iset(k.cast(k.f64(1.8e19), tc.uint64()));                           // 11: above INT64_MAX
  iset(k.cast(k.un(op_id::neg, k.f64(2.0)), tc.uint64()));            // 12: -2.0 -> 0 (clamped)
  fset(k.cast(k.i64(-5), tc.float32()));                              // 0: -5.0
  fset(k.cast(k.integer(-1, tc.uint64()), tc.float64()));             // 1: 2**64
  fset(k.cast(k.f64(0.1), tc.float32()));                             // 2: float(float32(0.1))
  fset(k.cast(k.cplx({1.5, 2.0}, tc.complex64()), tc.float64()));     // 3: 1.5
  fset(k.op(op_id::imag, tc.float64(), {k.cast(k.f64(4.0), tc.complex128())}));  // 4: 0
  // float16 is storage: h[1] = h[0] * 3 computed in float32; h[2] = float16(x)
  body.push_back(k.eval(k.store(k.v(h), k.cast(k.bin(op_id::mul, k.cast(k.load(k.v(h), {k.i64(0)}), tc.float32()), k.f32(3.0)),
                                              tc.float16()), {k.i64(1)})));
  body.push_back(k.eval(k.store(k.v(h), k.cast(k.v(x), tc.float16()), {k.i64(2)})));
  body.push_back(k.eval(k.store(k.v(h), k.bin(op_id::add, k.load(k.v(h), {k.i64(0)}), k.load(k.v(h), {k.i64(0)})), {k.i64(3)})));
  fset(k.load(k.v(h), {k.i64(1)}));                                   // 5: 1.25 * 3
  fset(k.load(k.v(h), {k.i64(2)}));                                   // 6: -2.7 rounded to half
  fset(k.load(k.v(h), {k.i64(3)}));                                   // 7: 2.5
  typed_module m = module_of({k.finish(body)});
  expect_compiles(m);

  device_buffer<std::int64_t> di(16);
  device_buffer<double> df(16);
  device_buffer<std::uint16_t> dh(4);
  dh.upload({0x3D00, 0, 0, 0});  // 1.25
  run(m, dim3(1), dim3(1),
      slots().array(di.get(), {16}, 8).array(df.get(), {16}, 8).array(dh.get(), {4}, 2).scalar(-2.7));
  auto iv = di.download();
  auto fv = df.download();
  EXPECT_EQ(iv[0], -2);
  EXPECT_EQ(iv[1], std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(iv[2], std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(iv[3], 0);
  EXPECT_EQ(iv[4], 44);
  EXPECT_EQ(iv[5], 1);
  EXPECT_EQ(iv[6], 1);
  EXPECT_EQ(iv[7], 0);
  EXPECT_EQ(iv[8], 3);
  EXPECT_EQ(iv[9], 4294967295LL);
  EXPECT_EQ(iv[10], 3000000000LL);
  EXPECT_EQ(static_cast<std::uint64_t>(iv[11]), 18000000000000000000ull);
  EXPECT_EQ(static_cast<std::uint64_t>(iv[12]), 0u);
  EXPECT_EQ(fv[0], -5.0);
  EXPECT_EQ(fv[1], 18446744073709551616.0);
  EXPECT_EQ(fv[2], static_cast<double>(0.1f));
  EXPECT_EQ(fv[3], 1.5);
  EXPECT_EQ(fv[4], 0.0);
  EXPECT_EQ(fv[5], 3.75);
  EXPECT_EQ(fv[6], -2.69921875);  // the nearest half to -2.7
  EXPECT_EQ(fv[7], 2.5);
  auto hv = dh.download();
  EXPECT_EQ(hv[1], 0x4380);  // 3.75
}

// Every coordinate of a 3-D launch, and the lane (the linear thread id in
// the block modulo 32).
TEST(CodegenKernels, ThreadCoordinatesIn3D) {
  type_context tc;
  typed_builder k(tc, "coords");
  const type* i32 = tc.int32();
  const type* i64 = tc.int64();
  var_id out = k.param("out", tc.array(i32, 2, array_layout::c));
  var_id lin = k.local("lin", i64);
  // The global linear thread id: ((bz * gy + by) * gx + bx) * threads + (tz * dy + ty) * dx + tx
  auto c64 = [&](expr_id e) { return k.cast(e, i64); };
  auto block_lin = k.bin(op_id::add, k.bin(op_id::mul, k.bin(op_id::add, k.bin(op_id::mul, c64(k.bid(2)), c64(k.gdim(1))), c64(k.bid(1))), c64(k.gdim(0))),
                         c64(k.bid(0)));
  auto threads = k.bin(op_id::mul, k.bin(op_id::mul, c64(k.bdim(0)), c64(k.bdim(1))), c64(k.bdim(2)));
  auto thread_lin = k.bin(op_id::add, k.bin(op_id::mul, k.bin(op_id::add, k.bin(op_id::mul, c64(k.tid(2)), c64(k.bdim(1))), c64(k.tid(1))), c64(k.bdim(0))),
                          c64(k.tid(0)));
  std::vector<stmt_id> body{k.assign(lin, k.bin(op_id::add, k.bin(op_id::mul, block_lin, threads), thread_lin))};
  std::vector<expr_id> values{k.tid(0), k.tid(1), k.tid(2), k.bid(0), k.bid(1), k.bid(2), k.bdim(0), k.bdim(1), k.bdim(2),
                              k.gdim(0), k.gdim(1), k.gdim(2), k.intrinsic("cuda.laneid", i32, {})};
  for (std::size_t j = 0; j < values.size(); ++j)
    body.push_back(k.eval(k.store(k.v(out), values[j], {k.v(lin), k.i64(static_cast<std::int64_t>(j))})));
  typed_module m = module_of({k.finish(body)});
  expect_compiles(m);
  const dim3 grid(3, 2, 2), block(5, 4, 3);
  const std::size_t n = grid.count() * block.count();
  device_buffer<std::int32_t> d(n * 13);
  run(m, grid, block, slots().array(d.get(), {static_cast<std::int64_t>(n), 13}, 4));
  auto o = d.download();
  std::size_t row = 0;
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx)
        for (unsigned tz = 0; tz < block.z; ++tz)
          for (unsigned ty = 0; ty < block.y; ++ty)
            for (unsigned tx = 0; tx < block.x; ++tx, ++row) {
              unsigned lane = (tx + block.x * (ty + block.y * tz)) % 32;
              std::vector<std::int32_t> want{static_cast<std::int32_t>(tx), static_cast<std::int32_t>(ty), static_cast<std::int32_t>(tz),
                                             static_cast<std::int32_t>(bx), static_cast<std::int32_t>(by), static_cast<std::int32_t>(bz),
                                             5, 4, 3, 3, 2, 2, static_cast<std::int32_t>(lane)};
              std::vector<std::int32_t> got(o.begin() + static_cast<std::ptrdiff_t>(row * 13), o.begin() + static_cast<std::ptrdiff_t>(row * 13 + 13));
              ASSERT_EQ(got, want) << "row " << row;
            }
}
