// Code generation of memory: shared memory with barriers (a block
// reduction, syncthreads_count/_and/_or, dynamic shared memory), atomics
// (a histogram, every atomic op), array views with Python's slice rules,
// layouts C, F and A, negative indices, local and constant arrays.
#include "test_codegen_support.hpp"

#include <cuforge/frontend/diagnostics.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <numeric>

using namespace cuforge::testing::cg;
using cuforge::dim3;
using cuforge::testing::device_buffer;

namespace {

const type* shared_of(type_context& tc, const type* dt) { return tc.array(dt, 1, array_layout::c, false, address_space::shared); }

}  // namespace

// s = cuda.shared.array(256, float32); s[t] = x[i] if i < n else 0
// syncthreads(); step = blockDim.x // 2
// while step > 0: (if t < step: s[t] += s[t + step]); syncthreads(); step //= 2
// if t == 0: out[blockIdx.x] = s[0]
TEST(CodegenMemory, SharedMemoryBlockSumWithBarriers) {
  type_context tc;
  typed_builder k(tc, "block_sum");
  const type* f32 = tc.float32();
  const type* i64 = tc.int64();
  var_id x = k.param("x", tc.array(f32, 1, array_layout::c));
  var_id out = k.param("out", tc.array(f32, 1, array_layout::c));
  var_id s = k.local("s", shared_of(tc, f32));
  var_id t = k.local("t", i64);
  var_id i = k.local("i", i64);
  var_id step = k.local("step", i64);
  std::vector<stmt_id> body;
  body.push_back(k.assign(s, k.op(op_id::shared_array, shared_of(tc, f32), {}, {256})));
  body.push_back(k.assign(t, k.cast(k.tid(0), i64)));
  body.push_back(k.assign(i, k.grid(0)));
  auto value = k.cond(k.cmp(op_id::lt, k.v(i), k.shape(k.v(x), 0)), k.load(k.v(x), {k.v(i)}), k.f32(0.0));
  body.push_back(k.eval(k.store(k.v(s), value, {k.v(t)})));
  body.push_back(k.eval(k.sync()));
  body.push_back(k.assign(step, k.bin(op_id::floordiv, k.cast(k.bdim(0), i64), k.i64(2))));
  auto add = k.eval(k.store(k.v(s), k.bin(op_id::add, k.load(k.v(s), {k.v(t)}), k.load(k.v(s), {k.bin(op_id::add, k.v(t), k.v(step))})),
                            {k.v(t)}));
  body.push_back(k.while_(k.cmp(op_id::gt, k.v(step), k.i64(0)),
                          {k.if_(k.cmp(op_id::lt, k.v(t), k.v(step)), {add}), k.eval(k.sync()),
                           k.assign(step, k.bin(op_id::floordiv, k.v(step), k.i64(2)))}));
  body.push_back(k.if_(k.cmp(op_id::eq, k.v(t), k.i64(0)),
                       {k.eval(k.store(k.v(out), k.load(k.v(s), {k.i64(0)}), {k.cast(k.bid(0), i64)}))}));
  typed_module m = module_of({k.finish(body, nullptr, /*uses_barrier=*/true)});
  ptx_result p = expect_ptx_assembles(m);
  EXPECT_NE(p.ptx.find("bar.sync"), std::string::npos);
  EXPECT_NE(p.ptx.find(".shared .align 16 .b8"), std::string::npos) << p.ptx;
  expect_valid_ir(m, true);
  expect_valid_ir(m, false);

  const std::size_t n = 256 * 7 + 100;
  std::vector<float> xs(n);
  for (std::size_t j = 0; j < n; ++j) xs[j] = static_cast<float>(j % 97);  // exact sums in any order
  device_buffer<float> dx(n), dout(8);
  dx.upload(xs);
  run(m, dim3(8), dim3(256), slots().array(dx.get(), {static_cast<std::int64_t>(n)}, 4).array(dout.get(), {8}, 4));
  auto o = dout.download();
  for (std::size_t b = 0; b < 8; ++b) {
    float want = 0;
    for (std::size_t j = b * 256; j < std::min(n, (b + 1) * 256); ++j) want += xs[j];
    EXPECT_EQ(o[b], want) << "block " << b;
  }
  host_kernel hk = compile_host(m, host_config());
  EXPECT_EQ(hk.static_shared_bytes, 1024u);
  EXPECT_TRUE(hk.uses_barrier);
  EXPECT_EQ(hk.param_sizes, std::vector<std::size_t>(6, 8));
}

// Per block (blocks of 100 threads, not a power of two):
//   out[b, 0] = syncthreads_count(t % 3 == 0)
//   out[b, 1] = syncthreads_and(x[i] > 0)
//   out[b, 2] = syncthreads_or(t == 5 + b)   (false in the last block: t < 100)
//   out[b, 3] = sum over r in range(6) of syncthreads_count(t < 10 * r)   (back to back)
TEST(CodegenMemory, SyncthreadsCountAndOr) {
  type_context tc;
  typed_builder k(tc, "reductions");
  const type* i32 = tc.int32();
  const type* i64 = tc.int64();
  var_id x = k.param("x", tc.array(i32, 1, array_layout::c));
  var_id out = k.param("out", tc.array(i32, 2, array_layout::c));
  var_id t = k.local("t", i32);
  var_id b = k.local("b", i32);
  var_id r = k.local("r", i32);
  var_id c = k.local("c", i32);
  var_id acc = k.local("acc", i32);
  std::vector<stmt_id> body;
  body.push_back(k.assign(t, k.tid(0)));
  body.push_back(k.assign(b, k.bid(0)));
  body.push_back(k.assign(c, k.intrinsic("cuda.syncthreads_count", i32, {k.cast(k.cmp(op_id::eq, k.bin(op_id::mod, k.v(t), k.i32(3)), k.i32(0)), i32)})));
  auto positive = k.cast(k.cmp(op_id::gt, k.load(k.v(x), {k.grid(0)}), k.i32(0)), i32);
  var_id a = k.local("a", i32);
  var_id o = k.local("o", i32);
  body.push_back(k.assign(a, k.intrinsic("cuda.syncthreads_and", i32, {positive})));
  body.push_back(k.assign(o, k.intrinsic("cuda.syncthreads_or", i32, {k.cast(k.cmp(op_id::eq, k.v(t), k.bin(op_id::add, k.v(b), k.i32(5))), i32)})));
  body.push_back(k.assign(acc, k.i32(0)));
  body.push_back(k.for_range(r, k.i32(0), k.i32(6), k.i32(1),
                             {k.assign(acc, k.bin(op_id::add, k.v(acc),
                                                  k.intrinsic("cuda.syncthreads_count", i32,
                                                       {k.cast(k.cmp(op_id::lt, k.v(t), k.bin(op_id::mul, k.v(r), k.i32(10))), i32)})))}));
  auto bi = k.cast(k.v(b), i64);
  // Every thread writes what it got: all of them must see the block's result.
  auto row = k.cast(k.op(op_id::add, i32, {k.op(op_id::mul, i32, {k.v(b), k.bdim(0)}), k.v(t)}), i64);
  (void)bi;
  body.push_back(k.eval(k.store(k.v(out), k.v(c), {row, k.i64(0)})));
  body.push_back(k.eval(k.store(k.v(out), k.v(a), {row, k.i64(1)})));
  body.push_back(k.eval(k.store(k.v(out), k.v(o), {row, k.i64(2)})));
  body.push_back(k.eval(k.store(k.v(out), k.v(acc), {row, k.i64(3)})));
  typed_module m = module_of({k.finish(body, nullptr, true)});
  ptx_result p = expect_ptx_assembles(m);
  EXPECT_NE(p.ptx.find("bar.red.popc"), std::string::npos) << p.ptx;
  EXPECT_NE(p.ptx.find("bar.red.and"), std::string::npos);
  EXPECT_NE(p.ptx.find("bar.red.or"), std::string::npos);
  expect_valid_ir(m, false);

  const int blocks = 3, threads = 100;
  std::vector<std::int32_t> xs(blocks * threads, 1);
  xs[150] = 0;  // block 1 has a non-positive element
  device_buffer<std::int32_t> dx(xs.size()), dout(blocks * threads * 4);
  dx.upload(xs);
  run(m, dim3(blocks), dim3(threads), slots().array(dx.get(), {blocks * threads}, 4).array(dout.get(), {blocks * threads, 4}, 4));
  auto res = dout.download();
  for (int bb = 0; bb < blocks; ++bb)
    for (int tt = 0; tt < threads; ++tt) {
      const std::size_t r0 = static_cast<std::size_t>((bb * threads + tt) * 4);
      ASSERT_EQ(res[r0 + 0], 34) << bb << " " << tt;  // 0, 3, ..., 99
      ASSERT_EQ(res[r0 + 1], bb == 1 ? 0 : 1) << bb << " " << tt;
      ASSERT_EQ(res[r0 + 2], 1) << bb << " " << tt;
      ASSERT_EQ(res[r0 + 3], 0 + 10 + 20 + 30 + 40 + 50) << bb << " " << tt;
    }
}

// hist[x[i] % nbins] += 1 with atomic adds, once straight to global memory
// and once through a shared-memory histogram per block.
TEST(CodegenMemory, HistogramWithAtomicAdd) {
  type_context tc;
  const type* i32 = tc.int32();
  const type* u32 = tc.uint32();
  const type* i64 = tc.int64();
  const std::int64_t nbins = 16;
  auto build = [&](bool shared) {
    typed_builder k(tc, shared ? "hist_shared" : "hist_global");
    var_id x = k.param("x", tc.array(i32, 1, array_layout::c));
    var_id hist = k.param("hist", tc.array(u32, 1, array_layout::c));
    var_id i = k.local("i", i64);
    var_id t = k.local("t", i64);
    var_id sh = k.local("sh", shared_of(tc, u32));
    std::vector<stmt_id> body;
    body.push_back(k.assign(i, k.grid(0)));
    body.push_back(k.assign(t, k.cast(k.tid(0), i64)));
    if (shared) {
      body.push_back(k.assign(sh, k.op(op_id::shared_array, shared_of(tc, u32), {}, {nbins})));
      body.push_back(k.if_(k.cmp(op_id::lt, k.v(t), k.i64(nbins)), {k.eval(k.store(k.v(sh), k.integer(0, u32), {k.v(t)}))}));
      body.push_back(k.eval(k.sync()));
    }
    auto bin = k.cast(k.bin(op_id::mod, k.load(k.v(x), {k.v(i)}), k.i32(static_cast<std::int32_t>(nbins))), i64);
    auto target = shared ? k.v(sh) : k.v(hist);
    auto count = k.eval(k.intrinsic("cuda.atomic.add", u32, {target, k.integer(1, u32), bin}));
    body.push_back(k.if_(k.cmp(op_id::lt, k.v(i), k.shape(k.v(x), 0)), {count}));
    if (shared) {
      body.push_back(k.eval(k.sync()));
      body.push_back(k.if_(k.cmp(op_id::lt, k.v(t), k.i64(nbins)),
                           {k.eval(k.intrinsic("cuda.atomic.add", u32, {k.v(hist), k.load(k.v(sh), {k.v(t)}), k.v(t)}))}));
    }
    return module_of({k.finish(body, nullptr, shared)});
  };
  const std::size_t n = 5000;
  std::vector<std::int32_t> xs(n);
  std::vector<std::uint32_t> want(nbins, 0);
  for (std::size_t j = 0; j < n; ++j) {
    xs[j] = static_cast<std::int32_t>((j * 7919) % 1000) - 300;  // negative values too: Python's % keeps bins >= 0
    want[static_cast<std::size_t>(((xs[j] % nbins) + nbins) % nbins)]++;
  }
  for (bool shared : {false, true}) {
    SCOPED_TRACE(shared ? "shared" : "global");
    typed_module m = build(shared);
    ptx_result p = expect_ptx_assembles(m);
    EXPECT_NE(p.ptx.find(shared ? "atom.shared.add.u32" : "atom.global.add.u32"), std::string::npos) << p.ptx;
    expect_valid_ir(m, false);
    device_buffer<std::int32_t> dx(n);
    device_buffer<std::uint32_t> dh(nbins);
    dx.upload(xs);
    dh.upload(std::vector<std::uint32_t>(nbins, 0));
    run(m, dim3(static_cast<unsigned>((n + 127) / 128)), dim3(128),
        slots().array(dx.get(), {static_cast<std::int64_t>(n)}, 4).array(dh.get(), {nbins}, 4));
    EXPECT_EQ(dh.download(), want);
  }
}

// Every atomic op from every thread of 4 blocks of 64:
//   c[0] += 1 (returning the old values: a permutation), c[1] -= 2, max/min
//   of int32 and float64 (nan operands ignored), float32 adds, exch, inc and
//   dec with limits, cas (exactly one winner), and/or/xor.
TEST(CodegenMemory, AtomicOperations) {
  type_context tc;
  typed_builder k(tc, "atomics");
  const type* i64 = tc.int64();
  const type* i32 = tc.int32();
  const type* u32 = tc.uint32();
  const type* f64 = tc.float64();
  const type* f32 = tc.float32();
  var_id ci = k.param("ci", tc.array(i64, 1, array_layout::c));
  var_id c32 = k.param("c32", tc.array(i32, 1, array_layout::c));
  var_id cu = k.param("cu", tc.array(u32, 1, array_layout::c));
  var_id cf = k.param("cf", tc.array(f64, 1, array_layout::c));
  var_id cf32 = k.param("cf32", tc.array(f32, 1, array_layout::c));
  var_id olds = k.param("olds", tc.array(i64, 1, array_layout::c));
  var_id i = k.local("i", i64);
  var_id v = k.local("v", i32);
  var_id fv = k.local("fv", f64);
  auto at = [&](const char* o, var_id arr, const type* t, std::vector<expr_id> values, std::int64_t cell) {
    values.insert(values.begin(), k.v(arr));
    values.push_back(k.i64(cell));
    return k.intrinsic(o, t, values);
  };
  std::vector<stmt_id> body;
  body.push_back(k.assign(i, k.grid(0)));
  body.push_back(k.eval(k.store(k.v(olds), at("cuda.atomic.add", ci, i64, {k.i64(1)}, 0), {k.v(i)})));
  body.push_back(k.eval(at("cuda.atomic.sub", ci, i64, {k.i64(2)}, 1)));
  body.push_back(k.assign(v, k.bin(op_id::sub, k.cast(k.bin(op_id::mod, k.bin(op_id::mul, k.v(i), k.i64(37)), k.i64(1000)), i32), k.i32(500))));
  body.push_back(k.eval(at("cuda.atomic.max", c32, i32, {k.v(v)}, 0)));
  body.push_back(k.eval(at("cuda.atomic.min", c32, i32, {k.v(v)}, 1)));
  auto nan_or = k.cond(k.cmp(op_id::eq, k.bin(op_id::mod, k.v(i), k.i64(5)), k.i64(0)), k.bin(op_id::div, k.f64(0.0), k.f64(0.0)),
                       k.cast(k.v(v), f64));
  body.push_back(k.assign(fv, nan_or));
  body.push_back(k.eval(at("cuda.atomic.max", cf, f64, {k.v(fv)}, 0)));
  body.push_back(k.eval(at("cuda.atomic.min", cf, f64, {k.v(fv)}, 1)));
  body.push_back(k.eval(at("cuda.atomic.add", cf32, f32, {k.f32(0.5)}, 0)));
  body.push_back(k.eval(at("cuda.atomic.sub", cf32, f32, {k.f32(0.25)}, 1)));
  body.push_back(k.eval(at("cuda.atomic.exch", ci, i64, {k.v(i)}, 2)));
  body.push_back(k.eval(at("cuda.atomic.inc", cu, u32, {k.integer(9, u32)}, 0)));
  body.push_back(k.eval(at("cuda.atomic.dec", cu, u32, {k.integer(9, u32)}, 1)));
  // cas(c[3], 0, i + 1): one thread sees 0 and wins.
  auto won = k.cmp(op_id::eq, k.intrinsic("cuda.atomic.cas", i64, {k.v(ci), k.i64(0), k.bin(op_id::add, k.v(i), k.i64(1)), k.i64(3)}), k.i64(0));
  body.push_back(k.if_(won, {k.eval(at("cuda.atomic.add", ci, i64, {k.i64(1)}, 4))}));
  auto bit = k.bin(op_id::shl, k.integer(1, u32), k.cast(k.bin(op_id::mod, k.v(i), k.i64(32)), u32));
  body.push_back(k.eval(at("cuda.atomic.or_", cu, u32, {bit}, 2)));
  body.push_back(k.eval(at("cuda.atomic.and_", cu, u32, {k.un(op_id::invert, bit)}, 3)));
  body.push_back(k.eval(at("cuda.atomic.xor", cu, u32, {k.cast(k.v(i), u32)}, 4)));
  typed_module m = module_of({k.finish(body)});
  expect_compiles(m);

  const std::int64_t n = 256;
  device_buffer<std::int64_t> dci(5), dolds(n);
  device_buffer<std::int32_t> dc32(2);
  device_buffer<std::uint32_t> dcu(5);
  device_buffer<double> dcf(2);
  device_buffer<float> dcf32(2);
  dci.upload({0, 1000, -1, 0, 0});
  dc32.upload({std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()});
  dcu.upload({0, 0, 0, 0xFFFFFFFFu, 0});
  dcf.upload({-1e300, 1e300});
  dcf32.upload({0.0f, 100.0f});
  run(m, dim3(4), dim3(64),
      slots().array(dci.get(), {5}, 8).array(dc32.get(), {2}, 4).array(dcu.get(), {5}, 4).array(dcf.get(), {2}, 8)
          .array(dcf32.get(), {2}, 4).array(dolds.get(), {n}, 8));
  auto vi = dci.download();
  auto olds_v = dolds.download();
  std::sort(olds_v.begin(), olds_v.end());
  std::vector<std::int64_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  EXPECT_EQ(olds_v, perm);
  EXPECT_EQ(vi[0], n);
  EXPECT_EQ(vi[1], 1000 - 2 * n);
  EXPECT_GE(vi[2], 0);
  EXPECT_LT(vi[2], n);
  EXPECT_GE(vi[3], 1);
  EXPECT_EQ(vi[4], 1);
  int vmax = std::numeric_limits<int>::min(), vmin = std::numeric_limits<int>::max();
  double fmax = -1e300, fmin = 1e300;
  std::uint32_t x = 0;
  for (std::int64_t j = 0; j < n; ++j) {
    int val = static_cast<int>((j * 37) % 1000) - 500;
    vmax = std::max(vmax, val);
    vmin = std::min(vmin, val);
    if (j % 5 != 0) {
      fmax = std::max(fmax, static_cast<double>(val));
      fmin = std::min(fmin, static_cast<double>(val));
    }
    x ^= static_cast<std::uint32_t>(j);
  }
  auto v32 = dc32.download();
  EXPECT_EQ(v32[0], vmax);
  EXPECT_EQ(v32[1], vmin);
  auto vf = dcf.download();
  EXPECT_EQ(vf[0], fmax);
  EXPECT_EQ(vf[1], fmin);
  auto vf32 = dcf32.download();
  EXPECT_EQ(vf32[0], 0.5f * n);
  EXPECT_EQ(vf32[1], 100.0f - 0.25f * n);
  auto vu = dcu.download();
  EXPECT_EQ(vu[0], static_cast<std::uint32_t>(n % 10));  // inc wraps to 0 after 9
  // dec from 0 goes to the limit, then counts down: 256 steps over a cycle of 10.
  EXPECT_EQ(vu[1], static_cast<std::uint32_t>((10 - n % 10) % 10));
  EXPECT_EQ(vu[2], 0xFFFFFFFFu);
  EXPECT_EQ(vu[3], 0u);
  EXPECT_EQ(vu[4], x);
}

// Views of a 6x8 int64 C array, written through:
//   a[2][j] = 100 + j (a row); v = a[1:5:2, ::-1]: v[p, q] = 1000 + 10p + q;
//   a[-1, -2] = 7 (negative indices count from the end); shapes of
//   a[::3], a[4:0:-2], a[::-1], a[10:], a[:-10], a[-100:100], a[::zero]
TEST(CodegenMemory, ArrayViewsAndNegativeIndices) {
  type_context tc;
  typed_builder k(tc, "views");
  const type* i64 = tc.int64();
  const type* c2 = tc.array(i64, 2, array_layout::c);
  const type* a2 = tc.array(i64, 2, array_layout::any);
  const type* c1 = tc.array(i64, 1, array_layout::c);
  const type* a1 = tc.array(i64, 1, array_layout::any);
  var_id a = k.param("a", c2);
  var_id shapes = k.param("shapes", c1);
  var_id zero = k.param("zero", i64);
  var_id row = k.local("row", c1);
  var_id v = k.local("v", a2);
  var_id j = k.local("j", i64);
  var_id p = k.local("p", i64);
  var_id q = k.local("q", i64);
  const std::int64_t none = std::numeric_limits<std::int64_t>::min();
  std::vector<stmt_id> body;
  body.push_back(k.assign(row, k.op(op_id::array_view, c1, {k.v(a), k.i64(2)}, {0, 1})));
  body.push_back(k.for_range(j, k.i64(0), k.shape(k.v(row), 0), k.i64(1),
                             {k.eval(k.store(k.v(row), k.bin(op_id::add, k.i64(100), k.v(j)), {k.v(j)}))}));
  body.push_back(k.assign(v, k.op(op_id::array_view, a2, {k.v(a), k.i64(1), k.i64(5), k.i64(2), k.i64(none), k.i64(none), k.i64(-1)}, {2, 2})));
  auto value = k.bin(op_id::add, k.i64(1000), k.bin(op_id::add, k.bin(op_id::mul, k.v(p), k.i64(10)), k.v(q)));
  body.push_back(k.for_range(p, k.i64(0), k.shape(k.v(v), 0), k.i64(1),
                             {k.for_range(q, k.i64(0), k.shape(k.v(v), 1), k.i64(1), {k.eval(k.store(k.v(v), value, {k.v(p), k.v(q)}))})}));
  body.push_back(k.eval(k.store(k.v(a), k.i64(7), {k.i64(-1), k.i64(-2)}, /*wrap=*/true)));
  int slot = 0;
  auto rows_of = [&](std::int64_t start, std::int64_t stop, expr_id step) {
    expr_id view = k.op(op_id::array_view, a2, {k.v(a), k.i64(start), k.i64(stop), step}, {2});
    body.push_back(k.eval(k.store(k.v(shapes), k.shape(view, 0), {k.i64(slot++)})));
  };
  rows_of(none, none, k.i64(3));
  rows_of(4, 0, k.i64(-2));
  rows_of(none, none, k.i64(-1));
  rows_of(10, none, k.i64(none));
  rows_of(none, -10, k.i64(none));
  rows_of(-100, 100, k.i64(none));
  rows_of(none, none, k.v(zero));
  rows_of(-2, none, k.i64(none));
  // Strides of a view: a[::-2, 1].strides[0] and a 1-d view's element read through A layout.
  expr_id col = k.op(op_id::array_view, a1, {k.v(a), k.i64(none), k.i64(none), k.i64(-2), k.i64(1)}, {2, 0});
  body.push_back(k.eval(k.store(k.v(shapes), k.op(op_id::array_stride, i64, {col}, {0}), {k.i64(slot++)})));
  body.push_back(k.eval(k.store(k.v(shapes), k.load(col, {k.i64(0)}), {k.i64(slot++)})));
  body.push_back(k.eval(k.store(k.v(shapes), k.op(op_id::array_size, i64, {k.v(v)}), {k.i64(slot++)})));
  typed_module m = module_of({k.finish(body)});
  expect_compiles(m);

  std::vector<std::int64_t> host(48);
  std::iota(host.begin(), host.end(), 0);
  device_buffer<std::int64_t> da(48), ds(11);
  da.upload(host);
  run(m, dim3(1), dim3(1), slots().array(da.get(), {6, 8}, 8).array(ds.get(), {11}, 8).scalar<std::int64_t>(0));
  auto got = da.download();
  std::vector<std::int64_t> want = host;
  for (int c = 0; c < 8; ++c) want[2 * 8 + c] = 100 + c;
  for (int pp = 0; pp < 2; ++pp)
    for (int qq = 0; qq < 8; ++qq) want[(1 + 2 * pp) * 8 + (7 - qq)] = 1000 + 10 * pp + qq;
  want[5 * 8 + 6] = 7;
  EXPECT_EQ(got, want);
  auto sh = ds.download();
  EXPECT_EQ(sh[0], 2);  // a[::3]: rows 0, 3
  EXPECT_EQ(sh[1], 2);  // a[4:0:-2]: rows 4, 2
  EXPECT_EQ(sh[2], 6);
  EXPECT_EQ(sh[3], 0);
  EXPECT_EQ(sh[4], 0);
  EXPECT_EQ(sh[5], 6);
  EXPECT_EQ(sh[6], 0);  // a zero step at run time: empty
  EXPECT_EQ(sh[7], 2);  // a[-2:]
  EXPECT_EQ(sh[8], -128);  // a[::-2, 1]: two rows back
  EXPECT_EQ(sh[9], want[5 * 8 + 1]);  // its first element is a[5, 1]
  EXPECT_EQ(sh[10], 16);
}

// The same sum over a 2-D float64 array passed as C, as F (the transposed
// data) and as A (a strided view: every other column).
TEST(CodegenMemory, LayoutsCFAndA) {
  type_context tc;
  const type* f64 = tc.float64();
  auto build = [&](array_layout layout) {
    typed_builder k(tc, std::string("weighted_") + static_cast<char>(layout));
    var_id a = k.param("a", tc.array(f64, 2, layout));
    var_id out = k.param("out", tc.array(f64, 1, array_layout::c));
    var_id i = k.local("i", tc.int64());
    var_id j = k.local("j", tc.int64());
    var_id s = k.local("s", f64);
    auto w = k.bin(op_id::mul, k.load(k.v(a), {k.v(i), k.v(j)}),
                   k.cast(k.bin(op_id::add, k.bin(op_id::mul, k.v(i), k.i64(100)), k.v(j)), f64));
    auto loops = k.for_range(i, k.i64(0), k.shape(k.v(a), 0), k.i64(1),
                             {k.for_range(j, k.i64(0), k.shape(k.v(a), 1), k.i64(1), {k.assign(s, k.bin(op_id::add, k.v(s), w))})});
    // Row 1 as a view (a[1, :]) and column 2 (a[:, 2]), weighted.
    var_id r1 = k.local("r1", tc.array(f64, 1, array_layout::any));
    var_id c2 = k.local("c2", tc.array(f64, 1, array_layout::any));
    var_id t = k.local("t", f64);
    auto sum_view = [&](var_id view) {
      return k.for_range(j, k.i64(0), k.shape(k.v(view), 0), k.i64(1),
                         {k.assign(t, k.bin(op_id::add, k.v(t), k.bin(op_id::mul, k.load(k.v(view), {k.v(j)}),
                                                                         k.cast(k.bin(op_id::add, k.v(j), k.i64(1)), f64))))});
    };
    const std::int64_t none = std::numeric_limits<std::int64_t>::min();
    return module_of({k.finish({k.assign(s, k.f64(0.0)), loops, k.eval(k.store(k.v(out), k.v(s), {k.i64(0)})),
                                k.assign(r1, k.op(op_id::array_view, tc.array(f64, 1, array_layout::any), {k.v(a), k.i64(1)}, {0, 1})),
                                k.assign(c2, k.op(op_id::array_view, tc.array(f64, 1, array_layout::any),
                                                  {k.v(a), k.i64(none), k.i64(none), k.i64(none), k.i64(2)}, {2, 0})),
                                k.assign(t, k.f64(0.0)), sum_view(r1), sum_view(c2), k.eval(k.store(k.v(out), k.v(t), {k.i64(1)}))})});
  };
  const std::int64_t r = 5, c = 7;
  auto value = [](std::int64_t i, std::int64_t j) { return static_cast<double>(i * 3 - j); };
  double want = 0;
  for (std::int64_t i = 0; i < r; ++i)
    for (std::int64_t j = 0; j < c; ++j) want += value(i, j) * static_cast<double>(i * 100 + j);
  double want_views = 0;
  for (std::int64_t j = 0; j < c; ++j) want_views += value(1, j) * static_cast<double>(j + 1);
  for (std::int64_t i = 0; i < r; ++i) want_views += value(i, 2) * static_cast<double>(i + 1);
  device_buffer<double> dout(2);
  // C
  std::vector<double> cdata(r * c), fdata(r * c), adata(r * 2 * c);
  for (std::int64_t i = 0; i < r; ++i)
    for (std::int64_t j = 0; j < c; ++j) {
      cdata[static_cast<std::size_t>(i * c + j)] = value(i, j);
      fdata[static_cast<std::size_t>(j * r + i)] = value(i, j);
      adata[static_cast<std::size_t>(i * 2 * c + 2 * j)] = value(i, j);
    }
  struct variant {
    array_layout layout;
    std::vector<double>* data;
    std::vector<std::int64_t> strides;
  };
  for (const variant& vv : {variant{array_layout::c, &cdata, {c * 8, 8}}, variant{array_layout::f, &fdata, {8, r * 8}},
                            variant{array_layout::any, &adata, {2 * c * 8, 16}}}) {
    SCOPED_TRACE(std::string(1, static_cast<char>(vv.layout)));
    typed_module m = build(vv.layout);
    expect_compiles(m);
    device_buffer<double> da(vv.data->size());
    da.upload(*vv.data);
    run(m, dim3(1), dim3(1), slots().array(da.get(), {r, c}, 8, vv.strides).array(dout.get(), {2}, 8));
    EXPECT_EQ(dout.download()[0], want);
    EXPECT_EQ(dout.download()[1], want_views);
  }
}

// l = cuda.local.array(10, float64) (zeroed); l[k] = k * k; out = sum of l
// read backwards, plus a 2-D local int32 array and an untouched element.
TEST(CodegenMemory, LocalArrays) {
  type_context tc;
  typed_builder k(tc, "locals");
  const type* f64 = tc.float64();
  const type* i32 = tc.int32();
  const type* l1 = tc.array(f64, 1, array_layout::c, false, address_space::local);
  const type* l2 = tc.array(i32, 2, array_layout::c, false, address_space::local);
  var_id out = k.param("out", tc.array(f64, 1, array_layout::c));
  var_id l = k.local("l", l1);
  var_id m2 = k.local("m2", l2);
  var_id i = k.local("i", tc.int64());
  var_id j = k.local("j", tc.int64());
  var_id s = k.local("s", f64);
  std::vector<stmt_id> body;
  body.push_back(k.assign(l, k.op(op_id::local_array, l1, {}, {10})));
  body.push_back(k.assign(m2, k.op(op_id::local_array, l2, {}, {3, 4})));
  body.push_back(k.for_range(i, k.i64(0), k.i64(9), k.i64(1), {k.eval(k.store(k.v(l), k.cast(k.bin(op_id::mul, k.v(i), k.v(i)), f64), {k.v(i)}))}));
  body.push_back(k.assign(s, k.f64(0)));
  body.push_back(k.for_range(i, k.i64(9), k.i64(-1), k.i64(-1), {k.assign(s, k.bin(op_id::add, k.v(s), k.load(k.v(l), {k.v(i)})))}));
  body.push_back(k.for_range(i, k.i64(0), k.i64(3), k.i64(1),
                             {k.for_range(j, k.i64(0), k.i64(4), k.i64(1),
                                          {k.eval(k.store(k.v(m2), k.cast(k.bin(op_id::add, k.bin(op_id::mul, k.v(i), k.i64(4)), k.v(j)), i32),
                                                          {k.v(i), k.v(j)}))})}));
  body.push_back(k.eval(k.store(k.v(out), k.v(s), {k.cast(k.tid(0), tc.int64())})));
  auto from2 = k.cast(k.bin(op_id::add, k.load(k.v(m2), {k.i64(2), k.i64(3)}), k.load(k.v(m2), {k.i64(-3), k.i64(-1)}, true)), f64);
  body.push_back(k.eval(k.store(k.v(out), from2, {k.i64(32)})));
  body.push_back(k.eval(k.store(k.v(out), k.load(k.v(l), {k.i64(9)}), {k.i64(33)})));
  typed_module m = module_of({k.finish(body)});
  expect_compiles(m);
  device_buffer<double> d(34);
  d.upload(std::vector<double>(34, -1.0));
  run(m, dim3(1), dim3(32), slots().array(d.get(), {34}, 8));
  auto o = d.download();
  for (int t = 0; t < 32; ++t) EXPECT_EQ(o[static_cast<std::size_t>(t)], 204.0);  // 0 + 1 + 4 + ... + 64
  EXPECT_EQ(o[32], 11.0 + 3.0);
  EXPECT_EQ(o[33], 0.0);  // never written: zeroed
}

// cuda.const.array_like of a captured (2, 3) float32 array.
TEST(CodegenMemory, ConstantArrays) {
  type_context tc;
  typed_builder k(tc, "consts");
  const type* f32 = tc.float32();
  const type* ct = tc.array(f32, 2, array_layout::c, true, address_space::constant);
  var_id out = k.param("out", tc.array(f32, 1, array_layout::c));
  var_id c = k.local("c", ct);
  global_value g;
  g.k = global_value::kind::const_array;
  g.name = "TABLE";
  g.dtype = "<f4";
  g.shape = {2, 3};
  const float table[6] = {1.5f, 2.5f, -3.0f, 4.0f, 0.125f, 6.0f};
  g.bytes.resize(sizeof(table));
  std::memcpy(g.bytes.data(), table, sizeof(table));
  k.fn().globals.push_back(g);
  var_id i = k.local("i", tc.int64());
  auto value = k.load(k.v(c), {k.bin(op_id::floordiv, k.v(i), k.i64(3)), k.bin(op_id::mod, k.v(i), k.i64(3))});
  std::vector<stmt_id> body{k.assign(c, k.op(op_id::const_array, ct, {}, {0})), k.assign(i, k.grid(0)),
                            k.if_(k.cmp(op_id::lt, k.v(i), k.i64(6)), {k.eval(k.store(k.v(out), k.bin(op_id::mul, value, k.f32(2.0)), {k.v(i)}))})};
  typed_module m = module_of({k.finish(body)});
  ptx_result p = expect_ptx_assembles(m);
  EXPECT_NE(p.ptx.find(".const .align 16 .b8"), std::string::npos) << p.ptx;
  EXPECT_NE(p.ptx.find("ld.const"), std::string::npos) << p.ptx;
  expect_valid_ir(m, false);
  device_buffer<float> d(6);
  run(m, dim3(1), dim3(8), slots().array(d.get(), {6}, 4));
  auto o = d.download();
  for (int j = 0; j < 6; ++j) EXPECT_EQ(o[static_cast<std::size_t>(j)], table[j] * 2.0f);
}

// A static shared array and the launch's dynamic shared memory together:
// the dynamic part starts after the static one, and its extent is what the
// launch gave (Numba's rule).
TEST(CodegenMemory, DynamicSharedMemory) {
  type_context tc;
  typed_builder k(tc, "dynshared");
  const type* f32 = tc.float32();
  const type* i64 = tc.int64();
  var_id out = k.param("out", tc.array(f32, 1, array_layout::c));
  var_id len = k.param("len", tc.array(i64, 1, array_layout::c));
  var_id st = k.local("st", shared_of(tc, f32));
  var_id dyn = k.local("dyn", shared_of(tc, f32));
  var_id t = k.local("t", i64);
  var_id n = k.local("n", i64);
  std::vector<stmt_id> body;
  body.push_back(k.assign(st, k.op(op_id::shared_array, shared_of(tc, f32), {}, {5})));
  body.push_back(k.assign(dyn, k.op(op_id::shared_array, shared_of(tc, f32), {}, {0})));
  body.push_back(k.assign(t, k.cast(k.tid(0), i64)));
  body.push_back(k.assign(n, k.cast(k.bdim(0), i64)));
  body.push_back(k.eval(k.store(k.v(dyn), k.cast(k.bin(op_id::mul, k.v(t), k.i64(2)), f32), {k.v(t)})));
  body.push_back(k.if_(k.cmp(op_id::lt, k.v(t), k.i64(5)), {k.eval(k.store(k.v(st), k.f32(-1.0), {k.v(t)}))}));
  body.push_back(k.eval(k.sync()));
  auto idx = k.bin(op_id::add, k.bin(op_id::mul, k.cast(k.bid(0), i64), k.v(n)), k.v(t));
  body.push_back(k.eval(k.store(k.v(out), k.load(k.v(dyn), {k.bin(op_id::sub, k.bin(op_id::sub, k.v(n), k.i64(1)), k.v(t))}), {idx})));
  body.push_back(k.if_(k.cmp(op_id::eq, k.v(t), k.i64(0)), {k.eval(k.store(k.v(len), k.shape(k.v(dyn), 0), {k.i64(0)}))}));
  typed_module m = module_of({k.finish(body, nullptr, true)});
  ptx_result p = expect_ptx_assembles(m);
  EXPECT_NE(p.ptx.find(".extern .shared .align 16 .b8 cuforge_dynamic_shared[]"), std::string::npos) << p.ptx;
  EXPECT_NE(p.ptx.find("%dynamic_smem_size"), std::string::npos);
  expect_valid_ir(m, false);
  const unsigned threads = 48;
  device_buffer<float> d(2 * threads);
  device_buffer<std::int64_t> dl(1);
  run(m, dim3(2), dim3(threads), slots().array(d.get(), {2 * threads}, 4).array(dl.get(), {1}, 8), threads * 4 + 8);
  auto o = d.download();
  for (unsigned b = 0; b < 2; ++b)
    for (unsigned t = 0; t < threads; ++t) EXPECT_EQ(o[b * threads + t], static_cast<float>(2 * (threads - 1 - t))) << b << " " << t;
  EXPECT_EQ(dl.download()[0], static_cast<std::int64_t>(threads + 2));
}

// Local arrays live on the thread's stack on the host: a kernel with
// barriers runs its threads as fibers (CUFORGE_CPU_STACK_KB, 256 KiB by
// default), so arrays its stack cannot hold are refused, not overflowed;
// without barriers the same arrays run on the workers' stacks.
TEST(CodegenMemory, LocalArraysBeyondAFiberStackAreRefused) {
  if (const char* kb = std::getenv("CUFORGE_CPU_STACK_KB"); kb != nullptr && *kb != '\0') GTEST_SKIP() << "CUFORGE_CPU_STACK_KB is set";
  type_context tc;
  const type* f64 = tc.float64();
  const type* big = tc.array(f64, 1, array_layout::c, false, address_space::local);
  for (bool barrier : {true, false}) {
    SCOPED_TRACE(barrier ? "with a barrier" : "without");
    typed_builder k(tc, barrier ? "big_local_sync" : "big_local");
    var_id out = k.param("out", tc.array(f64, 1, array_layout::c));
    var_id l = k.local("l", big);
    std::vector<stmt_id> body{k.assign(l, k.op(op_id::local_array, big, {}, {40000})),
                              k.eval(k.store(k.v(l), k.f64(2.0), {k.cast(k.tid(0), tc.int64())}))};
    if (barrier) body.push_back(k.eval(k.sync()));
    body.push_back(k.eval(k.store(k.v(out), k.load(k.v(l), {k.i64(3)}), {k.cast(k.tid(0), tc.int64())})));
    typed_module m = module_of({k.finish(body, nullptr, barrier)});
    expect_ptx_assembles(m);  // 320 KB of local memory is within a GPU thread's 512 KiB
    if (barrier) {
      try {
        compile_host(m, host_config());
        ADD_FAILURE() << "compile_host took 320 KB of local arrays in a kernel with barriers";
      } catch (const compile_error& e) {
        EXPECT_NE(std::string(e.what()).find("do not fit the cpu backend's 256 KiB fiber stacks"), std::string::npos) << e.what();
      }
    } else {
      device_buffer<double> d(8);
      run(m, dim3(1), dim3(8), slots().array(d.get(), {8}, 8));
      auto o = d.download();
      for (int t = 0; t < 8; ++t) EXPECT_EQ(o[static_cast<std::size_t>(t)], t == 3 ? 2.0 : 0.0);
    }
  }
}
