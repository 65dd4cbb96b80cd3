// Code generation per target: what the PTX says (libdevice linked only as
// used, fastmath, line info, the sm_XY chosen, atomics), the host kernel's
// contract (hidden context in device functions, exceptions out of JIT
// code), robustness against malformed typed IR, concurrent compiles, and
// compile latency (measured, not asserted).
#include "test_codegen_support.hpp"

#include <cuforge/frontend/diagnostics.hpp>

#include <algorithm>
#include <cstdlib>
#include <thread>

using namespace cuforge::testing::cg;
using cuforge::dim3;
using cuforge::testing::device_buffer;

namespace {

// out[i] = sin(x[i]) / y[i] + sqrt(x[i]) for float32 (or float64).
typed_module math_kernel(type_context& tc, const type* t, const std::string& name = "mathk") {
  return elementwise(tc, name, {t, t}, {t}, [&](typed_builder& k, std::vector<expr_id> in) {
    return std::vector<expr_id>{
        k.bin(op_id::add, k.bin(op_id::div, k.un(op_id::sin, in[0]), in[1]), k.un(op_id::sqrt, in[0]))};
  });
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

}  // namespace

TEST(CodegenTargets, PtxLinksOnlyTheLibdeviceItUses) {
  type_context tc;
  ptx_result p = expect_ptx_assembles(math_kernel(tc, tc.float32()));
  EXPECT_EQ(p.ptx.find("__nvvm_reflect"), std::string::npos);
  EXPECT_EQ(p.ptx.find("__nv_"), std::string::npos) << "libdevice should be inlined at O3:\n" << p.ptx;
  EXPECT_EQ(count(p.ptx, ".func"), 0u) << p.ptx;
  EXPECT_NE(p.ptx.find("div.rn.f32"), std::string::npos) << p.ptx;
  EXPECT_NE(p.ptx.find("sqrt.rn.f32"), std::string::npos) << p.ptx;
  std::string ir = expect_valid_ir(math_kernel(tc, tc.float32()), true);
  EXPECT_EQ(ir.find("define internal float @__nv_cosf"), std::string::npos);
  EXPECT_NE(ir.find("target triple = \"nvptx64-nvidia-cuda\""), std::string::npos);
  // O0 still links libdevice and resolves NVVMReflect.
  compile_config o0;
  o0.opt = false;
  ptx_result p0 = expect_ptx_assembles(math_kernel(tc, tc.float64()), o0);
  EXPECT_EQ(p0.ptx.find("__nvvm_reflect"), std::string::npos);
  EXPECT_NE(p0.ptx.find("sin"), std::string::npos);
}

TEST(CodegenTargets, FastmathApproximatesAndFlushes) {
  type_context tc;
  compile_config fast;
  fast.fastmath = true;
  ptx_result p = expect_ptx_assembles(math_kernel(tc, tc.float32()), fast);
  EXPECT_NE(p.ptx.find("sin.approx.ftz.f32"), std::string::npos) << p.ptx;
  EXPECT_NE(p.ptx.find("sqrt.approx.ftz.f32"), std::string::npos) << p.ptx;
  EXPECT_NE(p.ptx.find("div.approx.ftz.f32"), std::string::npos) << p.ptx;
  EXPECT_EQ(p.ptx.find("div.rn.f32"), std::string::npos);
  std::string ir = expect_valid_ir(math_kernel(tc, tc.float32()), false, fast);
  EXPECT_NE(ir.find("fdiv reassoc nsz arcp contract afn"), std::string::npos) << ir;
}

TEST(CodegenTargets, LineInfoAndDebugInfo) {
  type_context tc;
  compile_config li;
  li.lineinfo = true;
  ptx_result p = expect_ptx_assembles(math_kernel(tc, tc.float32()), li);
  EXPECT_NE(p.ptx.find(".loc"), std::string::npos) << p.ptx;
  EXPECT_NE(p.ptx.find(".file"), std::string::npos);
  EXPECT_NE(p.ptx.find("test_kernels.py"), std::string::npos);
  expect_valid_ir(math_kernel(tc, tc.float32()), false, li);
  compile_config dbg;
  dbg.debug_level = 1;
  dbg.opt = false;
  ptx_result d = expect_ptx_assembles(math_kernel(tc, tc.float32()), dbg);
  EXPECT_NE(d.ptx.find(".loc"), std::string::npos);
  std::string ir = expect_valid_ir(math_kernel(tc, tc.float32()), false, dbg);
  EXPECT_NE(ir.find("DICompileUnit"), std::string::npos);
  compile_config dbg_opt = dbg;  // what the dispatcher does for debug=True: optimised, with line info
  dbg_opt.opt = true;
  dbg_opt.lineinfo = true;
  expect_ptx_assembles(math_kernel(tc, tc.float32()), dbg_opt);
  expect_valid_ir(math_kernel(tc, tc.float32()), true, dbg_opt);
  // Debug info must not change what runs.
  std::vector<column> cols{column::of<float>(tc.float32(), {1.0f, 2.0f}), column::of<float>(tc.float32(), {2.0f, 4.0f}),
                           column::zeros<float>(tc.float32(), 2)};
  run_columns(math_kernel(tc, tc.float32()), cols, 2, dbg);
  auto out = cols[2].as<float>();
  EXPECT_FLOAT_EQ(out[0], std::sin(1.0f) / 2.0f + 1.0f);
}

TEST(CodegenTargets, ProcessorAndPtxVersionFollowTheComputeCapability) {
  type_context tc;
  typed_module m = math_kernel(tc, tc.float32());
  auto target_of = [&](int major, int minor) {
    compile_config o;
    o.cc = {major, minor};
    return compile_ptx(m, o).ptx;
  };
  std::string sm80 = target_of(8, 0);
  EXPECT_NE(sm80.find(".target sm_80"), std::string::npos);
  EXPECT_NE(sm80.find(".version 7.0"), std::string::npos);
  EXPECT_NE(target_of(8, 6).find(".target sm_86"), std::string::npos);
  // Newer than LLVM 19 knows: the newest it has (the driver JIT-compiles it forward).
  EXPECT_NE(target_of(12, 0).find(".target sm_90"), std::string::npos);
  EXPECT_NE(target_of(7, 0).find(".target sm_70"), std::string::npos);
  EXPECT_THROW(target_of(3, 5), cuforge::logic_error);
}

TEST(CodegenTargets, AtomicsInPtx) {
  type_context tc;
  const type* u32 = tc.uint32();
  const type* f64 = tc.float64();
  const type* u64 = tc.uint64();
  typed_builder k(tc, "atomic_ptx");
  var_id a = k.param("a", tc.array(u32, 1, array_layout::c));
  var_id f = k.param("f", tc.array(f64, 1, array_layout::c));
  var_id w = k.param("w", tc.array(u64, 1, array_layout::c));
  std::vector<stmt_id> body{
      k.eval(k.intrinsic("cuda.atomic.inc", u32, {k.v(a), k.integer(7, u32), k.i64(0)})),
      k.eval(k.intrinsic("cuda.atomic.dec", u32, {k.v(a), k.integer(7, u32), k.i64(1)})),
      k.eval(k.intrinsic("cuda.atomic.add", f64, {k.v(f), k.f64(1.0), k.i64(0)})),
      k.eval(k.intrinsic("cuda.atomic.max", f64, {k.v(f), k.f64(1.0), k.i64(1)})),
      k.eval(k.intrinsic("cuda.atomic.inc", u64, {k.v(w), k.integer(7, u64), k.i64(0)})),
      k.eval(k.intrinsic("cuda.threadfence", tc.none(), {})),
      k.eval(k.intrinsic("cuda.threadfence_block", tc.none(), {})),
      k.eval(k.intrinsic("cuda.threadfence_system", tc.none(), {})),
      k.eval(k.intrinsic("cuda.syncwarp", tc.none(), {k.integer(-1, u32)})),
  };
  // syncwarp makes the cpu backend run the block's threads as fibers (the typer says so for it).
  typed_module m = module_of({k.finish(body, nullptr, /*uses_barrier=*/true)});
  ptx_result p = expect_ptx_assembles(m);
  EXPECT_NE(p.ptx.find("atom.global.inc.u32"), std::string::npos) << p.ptx;
  EXPECT_NE(p.ptx.find("atom.global.dec.u32"), std::string::npos);
  EXPECT_NE(p.ptx.find("atom.global.add.f64"), std::string::npos);
  EXPECT_NE(p.ptx.find("atom.global.cas.b64"), std::string::npos);  // float max and 64-bit inc loop on CAS
  EXPECT_NE(p.ptx.find("membar.gl"), std::string::npos);
  EXPECT_NE(p.ptx.find("membar.cta"), std::string::npos);
  EXPECT_NE(p.ptx.find("membar.sys"), std::string::npos);
  EXPECT_NE(p.ptx.find("bar.warp.sync"), std::string::npos);
  expect_valid_ir(m, false);
  // 64-bit inc by CAS on the host too.
  device_buffer<std::uint32_t> da(2);
  device_buffer<double> df(2);
  device_buffer<std::uint64_t> dw(1);
  da.upload({0, 0});
  df.upload({0.0, -5.0});
  dw.upload({0});
  run(m, dim3(2), dim3(10), slots().array(da.get(), {2}, 4).array(df.get(), {2}, 8).array(dw.get(), {1}, 8));
  EXPECT_EQ(da.download(), (std::vector<std::uint32_t>{20 % 8, (8 - 20 % 8) % 8}));
  EXPECT_EQ(df.download(), (std::vector<double>{20.0, 1.0}));
  EXPECT_EQ(dw.download()[0], 20u % 8);
}

// A device function using a shared array, thread coordinates and a barrier,
// called twice: on the host it reaches them through the hidden context.
//   def reverse_block(arr):
//       s = cuda.shared.array(64, int32); t = cuda.threadIdx.x
//       s[t] = arr[t]; cuda.syncthreads(); v = s[cuda.blockDim.x - 1 - t]; cuda.syncthreads(); arr[t] = v
TEST(CodegenTargets, DeviceFunctionWithSharedMemoryAndBarriers) {
  type_context tc;
  const type* i32 = tc.int32();
  const type* arr = tc.array(i32, 1, array_layout::c);
  const type* sh = tc.array(i32, 1, array_layout::c, false, address_space::shared);
  typed_builder d(tc, "reverse_block", false);
  var_id a = d.param("arr", arr);
  var_id s = d.local("s", sh);
  var_id t = d.local("t", tc.int64());
  var_id v = d.local("v", i32);
  std::vector<stmt_id> body{d.assign(s, d.op(op_id::shared_array, sh, {}, {64})), d.assign(t, d.cast(d.tid(0), tc.int64())),
                            d.eval(d.store(d.v(s), d.load(d.v(a), {d.v(t)}), {d.v(t)})), d.eval(d.sync()),
                            d.assign(v, d.load(d.v(s), {d.bin(op_id::sub, d.bin(op_id::sub, d.cast(d.bdim(0), tc.int64()), d.i64(1)), d.v(t))})),
                            d.eval(d.sync()), d.eval(d.store(d.v(a), d.v(v), {d.v(t)}))};
  typed_function dev = d.finish(body, tc.none(), true);
  typed_builder k(tc, "twice");
  var_id x = k.param("x", arr);
  var_id y = k.param("y", arr);
  typed_function kern = k.finish({k.eval(k.op(op_id::call_device, tc.none(), {k.v(x)}, {1})),
                                  k.eval(k.op(op_id::call_device, tc.none(), {k.v(y)}, {1}))},
                                 nullptr, true);
  typed_module m = module_of({kern, dev});
  expect_compiles(m);
  std::vector<std::int32_t> xs(40), ys(40);
  for (int j = 0; j < 40; ++j) {
    xs[static_cast<std::size_t>(j)] = j;
    ys[static_cast<std::size_t>(j)] = 100 - j;
  }
  device_buffer<std::int32_t> dx(40), dy(40);
  dx.upload(xs);
  dy.upload(ys);
  run(m, dim3(1), dim3(40), slots().array(dx.get(), {40}, 4).array(dy.get(), {40}, 4));
  std::reverse(xs.begin(), xs.end());
  std::reverse(ys.begin(), ys.end());
  EXPECT_EQ(dx.download(), xs);
  EXPECT_EQ(dy.download(), ys);
  EXPECT_EQ(compile_host(m, host_config()).static_shared_bytes, 256u);
}

// Errors that leave host kernels unwind through the JIT's frames into the
// scheduler, which fails the launch with the message.
TEST(CodegenTargets, AssertAndRaiseWriteTheErrorRecordAndEndTheThread) {
  type_context tc;
  typed_builder k(tc, "asserts");
  var_id x = k.param("x", tc.array(tc.int64(), 1, array_layout::c));
  auto ok = k.cmp(op_id::lt, k.load(k.v(x), {k.cast(k.tid(0), tc.int64())}), k.i64(3));
  stmt_id check = k.assert_(ok, "value too large");  // (before k.sites(): argument order is unspecified)
  typed_module m = module_of({k.finish({check})}, k.sites());
  ASSERT_TRUE(m.may_raise());
  ptx_result p = expect_ptx_assembles(m);
  EXPECT_EQ(p.ptx.find("trap;"), std::string::npos) << "a trap would end the context:\n" << p.ptx;
  EXPECT_NE(p.ptx.find("exit;"), std::string::npos) << p.ptx;
  EXPECT_NE(p.ptx.find("atom.global.cas.b32"), std::string::npos) << "the first thread claims the record:\n" << p.ptx;
  EXPECT_NE(p.ptx.find(".param .u64 " + m.functions[0].symbol + "_param_3"), std::string::npos)
      << "the error record's hidden slot after the array's three:\n" << p.ptx;
  expect_valid_ir(m, false);
  device_buffer<std::int64_t> dx(4);
  dx.upload({0, 1, 2, 3});
  kernel_error_record rec = run(m, dim3(1), dim3(4), slots().array(dx.get(), {4}, 8));
  EXPECT_EQ(rec.code, static_cast<std::int32_t>(kernel_error::assertion));
  EXPECT_EQ(rec.site, 0);
  EXPECT_EQ(rec.line, m.raise_sites[0].line);
  EXPECT_EQ(rec.thread[0], 3u) << "the thread that failed";
  EXPECT_EQ(rec.block[0], 0u);
  dx.upload({0, 1, 2, 2});
  EXPECT_EQ(run(m, dim3(1), dim3(4), slots().array(dx.get(), {4}, 8)).code, 0) << "nothing raised";
  // A raise in a device function reports through the record its kernel was given.
  typed_builder d(tc, "deep", false);
  var_id y = d.param("y", tc.int64());
  stmt_id raise = d.if_(d.cmp(op_id::gt, d.v(y), d.i64(0)), {d.raise()});
  typed_function dev = d.finish({raise, d.ret(d.v(y))}, tc.int64());
  typed_builder r(tc, "raises");
  var_id z = r.param("z", tc.int64());
  expr_id call = r.op(op_id::call_device, tc.int64(), {r.v(z)}, {1});
  typed_module mr = module_of({r.finish({r.eval(call)}), dev}, d.sites());
  expect_compiles(mr);
  kernel_error_record raised = run(mr, dim3(2), dim3(2), slots().scalar<std::int64_t>(1));
  EXPECT_EQ(raised.code, static_cast<std::int32_t>(kernel_error::raised));
  EXPECT_EQ(run(mr, dim3(2), dim3(2), slots().scalar<std::int64_t>(0)).code, 0);
}

// A raising device function compiled on its own (Numba's device ABI) has no
// error record: its wrapper passes none, and a raising thread only exits: the
// claim on the record is guarded, so nothing is written through a null pointer.
TEST(CodegenTargets, ARaisingDeviceFunctionWithoutARecordOnlyExits) {
  type_context tc;
  typed_builder d(tc, "alone", false);
  var_id y = d.param("y", tc.int64());
  stmt_id raise = d.if_(d.cmp(op_id::gt, d.v(y), d.i64(0)), {d.raise()});
  typed_module m = module_of({d.finish({raise, d.ret(d.v(y))}, tc.int64())}, d.sites());
  ASSERT_TRUE(m.may_raise());
  expect_ptx_assembles(m);
  // Optimised, the wrapper's null record folds the guard away: no atomic on the record is left.
  const std::string ir = emit_llvm_ir(m, compile_config::for_target(target_kind::nvptx));
  EXPECT_EQ(ir.find("cmpxchg"), std::string::npos) << ir;
  EXPECT_NE(ir.find("exit"), std::string::npos) << "the raising thread still ends:\n" << ir;
}

// A kernel that calls syncthreads but is declared without barriers: the
// runtime's error propagates out of the JIT-compiled kernel.
TEST(CodegenTargets, BarrierInKernelDeclaredWithoutBarriersFailsCleanly) {
  CUFORGE_REQUIRE_CPU("the cpu backend's loop mode");
  type_context tc;
  typed_builder k(tc, "liar");
  var_id x = k.param("x", tc.array(tc.int32(), 1, array_layout::c));
  auto st = k.eval(k.store(k.v(x), k.tid(0), {k.cast(k.tid(0), tc.int64())}));
  typed_module m = module_of({k.finish({st, k.eval(k.sync())}, nullptr, /*uses_barrier=*/false)});
  device_buffer<std::int32_t> dx(8);
  CUFORGE_EXPECT_THROW_WITH(cuforge::cuda_error, "declared without barriers", run(m, dim3(1), dim3(8), slots().array(dx.get(), {8}, 4)));
}

TEST(CodegenTargets, InternalFailuresAreInternalCompilerErrorsNamingTheFunction) {
  type_context tc;
  typed_builder k(tc, "broken");
  k.param("x", tc.array(tc.float32(), 1, array_layout::c));
  std::vector<stmt_id> body{k.eval(k.op(op_id::tuple_get, tc.int64(), {k.tuple({k.i64(1)})}, {3}))};
  typed_module m = module_of({k.finish(body)});
  for (int target = 0; target < 2; ++target) {
    try {
      if (target == 0)
        compile_ptx(m, {});
      else
        compile_host(m, host_config());
      ADD_FAILURE() << "compiled";
    } catch (const internal_compiler_error& e) {
      EXPECT_EQ(e.function(), "broken");
      std::string what = e.what();
      EXPECT_NE(what.find("cuforge internal compiler error in 'broken'"), std::string::npos) << what;
      EXPECT_NE(what.find("This is a bug in cuforge, not in your kernel"), std::string::npos) << what;
      EXPECT_NE(e.detail().find("tuple_get"), std::string::npos) << e.detail();
    }
  }
  // A failure below the function level (an empty module) still names no function, but is internal.
  EXPECT_THROW(emit_llvm_ir(typed_module{}, host_config()), internal_compiler_error);
}

TEST(CodegenTargets, MalformedTypedIrThrowsLogicError) {
  type_context tc;
  auto expect_logic_error = [&](const char* what, auto mutate) {
    SCOPED_TRACE(what);
    typed_builder k(tc, "bad");
    var_id x = k.param("x", tc.array(tc.float32(), 1, array_layout::c));
    var_id i = k.local("i", tc.int64());
    std::vector<stmt_id> body{k.assign(i, k.i64(0)), k.eval(k.store(k.v(x), k.f32(1.0), {k.v(i)}))};
    mutate(k, body);
    typed_module m = module_of({k.finish(body)});
    EXPECT_THROW(compile_ptx(m, {}), cuforge::logic_error);
    EXPECT_THROW(compile_host(m, host_config()), cuforge::logic_error);
    EXPECT_THROW(emit_llvm_ir(m, host_config()), cuforge::logic_error);
  };
  expect_logic_error("untyped expression", [](typed_builder& k, std::vector<stmt_id>& b) {
    b.push_back(k.eval(k.i64(3)));
    k.fn().exprs.back().ty = nullptr;
  });
  expect_logic_error("untyped stage kind", [](typed_builder& k, std::vector<stmt_id>& b) {
    expr e;
    e.kind = expr_kind::binary;
    e.operands = {k.i64(1), k.i64(2)};
    e.ty = k.tc().int64();
    b.push_back(k.eval(k.add_expr(e)));
  });
  expect_logic_error("operand count", [](typed_builder& k, std::vector<stmt_id>& b) {
    b.push_back(k.eval(k.op(op_id::add, k.tc().int64(), {k.i64(1)})));
  });
  expect_logic_error("index count", [](typed_builder& k, std::vector<stmt_id>& b) {
    b.push_back(k.eval(k.op(op_id::array_load, k.tc().float32(), {k.v(0), k.i64(1), k.i64(2)}, {0})));
  });
  expect_logic_error("call out of range", [](typed_builder& k, std::vector<stmt_id>& b) {
    b.push_back(k.eval(k.op(op_id::call_device, k.tc().none(), {}, {5})));
  });
  expect_logic_error("store to non-variable", [](typed_builder& k, std::vector<stmt_id>& b) {
    stmt s;
    s.kind = stmt_kind::assign;
    s.target = k.i64(1);
    s.value = k.i64(2);
    b.push_back(k.add_stmt(s));
  });
  expect_logic_error("break outside a loop", [](typed_builder& k, std::vector<stmt_id>& b) { b.push_back(k.brk()); });
  expect_logic_error("expression id out of range", [](typed_builder& k, std::vector<stmt_id>& b) { b.push_back(k.eval(12345)); });
  expect_logic_error("tuple index", [](typed_builder& k, std::vector<stmt_id>& b) {
    b.push_back(k.eval(k.op(op_id::tuple_get, k.tc().int64(), {k.tuple({k.i64(1)})}, {3})));
  });
  expect_logic_error("an intrinsic index out of the registry", [](typed_builder& k, std::vector<stmt_id>& b) {
    b.push_back(k.eval(k.op(op_id::intrinsic, k.tc().int32(), {}, {1 << 20})));
  });
  expect_logic_error("an intrinsic without its index", [](typed_builder& k, std::vector<stmt_id>& b) {
    b.push_back(k.eval(k.op(op_id::intrinsic, k.tc().int32(), {})));
  });
  expect_logic_error("an intrinsic without its operand", [](typed_builder& k, std::vector<stmt_id>& b) {
    b.push_back(k.eval(k.intrinsic("cuda.syncthreads_count", k.tc().int32())));
  });
  expect_logic_error("comparison of mixed types", [](typed_builder& k, std::vector<stmt_id>& b) {
    b.push_back(k.eval(k.cmp(op_id::lt, k.i64(1), k.f64(2.0))));
  });
  expect_logic_error("store into constant memory", [](typed_builder& k, std::vector<stmt_id>& b) {
    const type* ct = k.tc().array(k.tc().float32(), 1, array_layout::c, true, address_space::constant);
    global_value g;
    g.k = global_value::kind::const_array;
    g.shape = {1};
    g.bytes = {0, 0, 0, 0};
    k.fn().globals.push_back(g);
    b.push_back(k.eval(k.store(k.op(op_id::const_array, ct, {}, {0}), k.f32(1.0), {k.i64(0)})));
  });
  // The module as a whole.
  typed_module empty;
  EXPECT_THROW(compile_ptx(empty, {}), cuforge::logic_error);
  typed_builder k(tc, "mismatch");
  k.param("x", tc.int64());
  typed_function f = k.finish({});
  f.arg_types.clear();
  EXPECT_THROW(compile_ptx(module_of({f}), {}), cuforge::logic_error);
}

TEST(CodegenTargets, ConcurrentCompilesAreIndependent) {
  std::vector<std::thread> threads;
  std::vector<std::string> errors(4);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t, &errors] {
      try {
        type_context tc;
        typed_module m = math_kernel(tc, t % 2 ? tc.float32() : tc.float64(), "concurrent" + std::to_string(t));
        for (int r = 0; r < 3; ++r) {
          ptx_result p = compile_ptx(m, {});
          if (p.ptx.find(".entry concurrent" + std::to_string(t)) == std::string::npos) errors[static_cast<std::size_t>(t)] = "bad PTX";
          host_kernel h = compile_host(m, host_config());
          if (h.fn == nullptr) errors[static_cast<std::size_t>(t)] = "no host function";
        }
      } catch (const std::exception& e) {
        errors[static_cast<std::size_t>(t)] = e.what();
      }
    });
  for (auto& th : threads) th.join();
  for (const auto& e : errors) EXPECT_EQ(e, "");
}

// --- the compile configuration -----------------------------------------------------------------

TEST(CompileConfig, IsAValueWhoseKeyNamesEverythingThatChangesTheCode) {
  compile_config a;
  EXPECT_EQ(a.target, target_kind::nvptx);
  EXPECT_EQ(a.key(), "nvptx sm_90 fastmath=0 debug=0 lineinfo=0 opt=1 maxnreg=0");
  compile_config b = a;
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_EQ(std::hash<compile_config>{}(a), a.hash());
  // Each field changes equality and the key.
  std::vector<compile_config> variants;
  for (int i = 0; i < 7; ++i) {
    compile_config c = a;
    switch (i) {
      case 0: c.target = target_kind::host; break;
      case 1: c.cc = {8, 0}; break;
      case 2: c.fastmath = true; break;
      case 3: c.debug_level = 1; break;
      case 4: c.lineinfo = true; break;
      case 5: c.opt = false; break;
      case 6: c.max_registers = 32; break;
    }
    EXPECT_NE(c, a) << i;
    EXPECT_NE(c.key(), a.key()) << i;
    variants.push_back(c);
  }
  for (std::size_t i = 0; i < variants.size(); ++i)
    for (std::size_t j = i + 1; j < variants.size(); ++j) EXPECT_NE(variants[i].key(), variants[j].key());
  // Host code is keyed on this CPU, not on a compute capability.
  compile_config h = compile_config::for_target(target_kind::host);
  EXPECT_NE(h.key().find(host_target_id()), std::string::npos) << h.key();
  EXPECT_EQ(h.key().find("sm_"), std::string::npos);
  EXPECT_EQ(h.with_target(target_kind::nvptx), a);
  EXPECT_TRUE(a.with_target(target_kind::nvptx).line_tables() == false);
  compile_config d = a;
  d.debug_level = 1;
  EXPECT_TRUE(d.debug() && d.line_tables());
}

TEST(CompileConfig, OutOfRangeFieldsAreRefusedByName) {
  compile_config c;
  c.debug_level = 3;
  EXPECT_THROW(c.validate(), cuforge::logic_error);
  c = {};
  c.max_registers = 300;
  try {
    c.validate();
    ADD_FAILURE() << "accepted";
  } catch (const cuforge::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("max_registers"), std::string::npos) << e.what();
  }
  c = {};
  c.target = static_cast<target_kind>(7);
  EXPECT_THROW(c.validate(), cuforge::logic_error);
  type_context tc;
  EXPECT_THROW(emit_llvm_ir(math_kernel(tc, tc.float32()), c), cuforge::logic_error) << "no target is made from it";
}

TEST(CompileConfig, ChoosesTheTargetAndEachEntryPointChecksIt) {
  type_context tc;
  typed_module m = math_kernel(tc, tc.float32());
  compile_config ptx;
  compile_config host = compile_config::for_target(target_kind::host);
  EXPECT_NE(emit_llvm_ir(m, ptx).find("target triple = \"nvptx64-nvidia-cuda\""), std::string::npos);
  std::string host_ir = emit_llvm_ir(m, host);
  EXPECT_EQ(host_ir.find("nvptx64"), std::string::npos);
  EXPECT_NE(host_ir.find("void @" + m.functions[0].symbol + "(ptr"), std::string::npos) << "the host's kernel ABI";
  EXPECT_THROW(compile_ptx(m, host), cuforge::logic_error);
  EXPECT_THROW(compile_host(m, ptx), cuforge::logic_error);
  EXPECT_THROW(compile_host_object(m, ptx), cuforge::logic_error);
}

TEST(CompileConfig, MaxRegistersIsTheEntrysMaxnregFromTheNvptxTarget) {
  type_context tc;
  typed_module m = math_kernel(tc, tc.float32());
  compile_config c;
  EXPECT_EQ(expect_ptx_assembles(m, c).ptx.find(".maxnreg"), std::string::npos);
  c.max_registers = 24;
  std::string ptx = expect_ptx_assembles(m, c).ptx;
  auto entry = ptx.find(".entry " + m.functions[0].symbol);
  ASSERT_NE(entry, std::string::npos) << ptx;
  auto at = ptx.find(".maxnreg 24", entry);
  EXPECT_NE(at, std::string::npos) << ptx;
  EXPECT_LT(at, ptx.find('{', entry)) << "a directive of the entry, before its body:\n" << ptx;
  // The host has no registers to cap: the same configuration compiles there.
  EXPECT_NO_THROW(compile_host(m, c.with_target(target_kind::host)));
}

TEST(CodegenTargets, RegistryRowsLowerPerTarget) {
  // The per-target rows, through real kernels: laneid, the barrier reductions, syncwarp, fences,
  // atomic inc/dec (the GPU's own instructions for 32-bit words).
  type_context tc;
  typed_builder k(tc, "per_target");
  const type* i32 = tc.int32();
  const type* u32 = tc.uint32();
  var_id a = k.param("a", tc.array(i32, 1, array_layout::c));
  var_id u = k.param("u", tc.array(u32, 1, array_layout::c));
  std::vector<stmt_id> body{
      k.eval(k.store(k.v(a), k.intrinsic("cuda.laneid", i32), {k.i64(0)})),
      k.eval(k.store(k.v(a), k.intrinsic("cuda.syncthreads_count", i32, {k.i32(1)}), {k.i64(1)})),
      k.eval(k.store(k.v(a), k.intrinsic("cuda.syncthreads_and", i32, {k.i32(1)}), {k.i64(2)})),
      k.eval(k.store(k.v(a), k.intrinsic("cuda.syncthreads_or", i32, {k.i32(0)}), {k.i64(3)})),
      k.eval(k.intrinsic("cuda.syncwarp", tc.none(), {k.integer(-1, u32)})),
      k.eval(k.intrinsic("cuda.threadfence_block", tc.none())),
      k.eval(k.intrinsic("cuda.atomic.inc", u32, {k.v(u), k.integer(100, u32), k.i64(0)})),
      k.eval(k.intrinsic("cuda.atomic.dec", u32, {k.v(u), k.integer(100, u32), k.i64(1)})),
  };
  typed_module m = module_of({k.finish(body)});
  m.functions[0].uses_barrier = true;
  expect_compiles(m);
  cuforge::testing::device_buffer<std::int32_t> da(4);
  cuforge::testing::device_buffer<std::uint32_t> du(2);
  da.upload({-1, -1, -1, -1});
  du.upload({0, 5});
  run(m, cuforge::dim3(1), cuforge::dim3(8), slots().array(da.get(), {4}, 4).array(du.get(), {2}, 4));
  auto va = da.download();
  EXPECT_GE(va[0], 0);
  EXPECT_LT(va[0], 8);
  EXPECT_EQ(va[1], 8) << "syncthreads_count";
  EXPECT_EQ(va[2], 1) << "syncthreads_and";
  EXPECT_EQ(va[3], 0) << "syncthreads_or";
  auto vu = du.download();
  EXPECT_EQ(vu[0], 8u);
  EXPECT_EQ(vu[1], 98u) << "5 down to 0, wrapped to the limit 100, then 99 and 98";
}
