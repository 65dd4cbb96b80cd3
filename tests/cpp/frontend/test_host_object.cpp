// Host code as bytes (codegen.hpp host_object, what the disk cache stores):
// compile_host_object then load_host_object runs what compile_host runs,
// with libm, shared memory, barriers and exceptions; bad bytes are errors,
// never crashes; loads are independent, concurrent and released.
#include "test_codegen_support.hpp"

#include <cmath>
#include <thread>

using namespace cuforge::testing::cg;
using cuforge::dim3;
using cuforge::testing::device_buffer;

namespace {

// out[i] = sin(x[i]) / y[i] + sqrt(x[i]): calls into libm on the host.
typed_module libm_kernel(type_context& tc, const std::string& name = "libm_kernel") {
  const type* f64 = tc.float64();
  return elementwise(tc, name, {f64, f64}, {f64}, [&](typed_builder& k, std::vector<expr_id> in) {
    return std::vector<expr_id>{
        k.bin(op_id::add, k.bin(op_id::div, k.un(op_id::sin, in[0]), in[1]), k.un(op_id::sqrt, in[0]))};
  });
}

// `with_block_entry`: the scheduler gets the kernel's block entry too (as the package's loader
// gives it), else its per-thread entry alone.
void launch_host(const host_kernel& hk, dim3 grid, dim3 block, const slots& args, kernel_error_record* record = nullptr,
                 bool with_block_entry = false) {
  std::vector<std::uint64_t> values = args.values();
  if (record != nullptr) values.push_back(reinterpret_cast<std::uintptr_t>(record));
  std::vector<void*> params;
  for (auto& v : values) params.push_back(&v);
  cuforge::cpu_kernel_symbol sym;
  sym.name = hk.name;
  sym.fn = hk.fn;
  if (with_block_entry) sym.block_fn = hk.block_fn;
  sym.static_shared_bytes = hk.static_shared_bytes;
  sym.uses_barrier = hk.uses_barrier;
  sym.param_sizes = hk.param_sizes;
  auto mod = cuforge::module::load(cuforge::module_image::from_host({sym}));
  cuforge::launch(mod.get_kernel(hk.name), cuforge::launch_config{.grid = grid, .block = block}, params.data());
  cuforge::synchronize();
}

std::vector<double> run_libm(const host_kernel& hk, const std::vector<double>& x, const std::vector<double>& y) {
  device_buffer<double> dx(x.size()), dy(y.size()), dout(x.size());
  dx.upload(x);
  dy.upload(y);
  auto n = static_cast<std::int64_t>(x.size());
  launch_host(hk, dim3(1), dim3(static_cast<unsigned>(x.size())),
              slots().array(dx.get(), {n}, 8).array(dy.get(), {n}, 8).array(dout.get(), {n}, 8));
  return dout.download();
}

}  // namespace

TEST(HostObject, RoundTripRunsWhatCompileHostRuns) {
  CUFORGE_REQUIRE_CPU("host code");
  type_context tc;
  typed_module m = libm_kernel(tc);
  host_object obj = compile_host_object(m, host_config());
  ASSERT_GT(obj.object.size(), 4u);
  EXPECT_EQ(obj.object.substr(0, 4), std::string("\x7f" "ELF"));
  EXPECT_EQ(obj.name, m.functions[0].symbol);
  EXPECT_EQ(obj.slots, 9u);  // three 1-d arrays
  EXPECT_FALSE(obj.uses_barrier);

  // A copy of the bytes, as if read back from a file.
  host_object read_back;
  read_back.name = obj.name;
  read_back.object = std::string(obj.object.begin(), obj.object.end());
  read_back.static_shared_bytes = obj.static_shared_bytes;
  read_back.uses_barrier = obj.uses_barrier;
  read_back.slots = obj.slots;
  host_kernel loaded = load_host_object(read_back);
  host_kernel jitted = compile_host(m, host_config());
  EXPECT_EQ(loaded.name, jitted.name);
  EXPECT_EQ(loaded.param_sizes, jitted.param_sizes);
  EXPECT_EQ(loaded.uses_barrier, jitted.uses_barrier);
  std::vector<double> x{0.25, 1.0, 2.0, 9.0}, y{1.0, 2.0, -4.0, 0.5};
  std::vector<double> a = run_libm(loaded, x, y), b = run_libm(jitted, x, y);
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_DOUBLE_EQ(a[i], std::sin(x[i]) / y[i] + std::sqrt(x[i])) << i;
    EXPECT_EQ(a[i], b[i]) << i;
  }
}

// s = shared.array(64, int64); s[t] = x[t]; syncthreads(); out[t] = s[63 - t]
TEST(HostObject, SharedMemoryAndBarriersSurviveTheRoundTrip) {
  CUFORGE_REQUIRE_CPU("host code");
  type_context tc;
  const type* i64 = tc.int64();
  const type* shared = tc.array(i64, 1, array_layout::c, false, address_space::shared);
  typed_builder k(tc, "reverse_in_shared");
  var_id x = k.param("x", tc.array(i64, 1, array_layout::c));
  var_id out = k.param("out", tc.array(i64, 1, array_layout::c));
  var_id s = k.local("s", shared);
  var_id t = k.local("t", i64);
  std::vector<stmt_id> body{k.assign(s, k.op(op_id::shared_array, shared, {}, {64})),
                            k.assign(t, k.cast(k.tid(0), i64)),
                            k.eval(k.store(k.v(s), k.load(k.v(x), {k.v(t)}), {k.v(t)})),
                            k.eval(k.sync()),
                            k.eval(k.store(k.v(out), k.load(k.v(s), {k.bin(op_id::sub, k.i64(63), k.v(t))}), {k.v(t)}))};
  typed_module m = module_of({k.finish(body, nullptr, true)});
  host_object obj = compile_host_object(m, host_config());
  EXPECT_EQ(obj.static_shared_bytes, 512u);
  EXPECT_TRUE(obj.uses_barrier);
  host_kernel hk = load_host_object(obj);
  EXPECT_EQ(hk.static_shared_bytes, 512u);
  std::vector<std::int64_t> xs(64);
  for (std::size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<std::int64_t>(i * i);
  device_buffer<std::int64_t> dx(64), dout(64);
  dx.upload(xs);
  launch_host(hk, dim3(1), dim3(64), slots().array(dx.get(), {64}, 8).array(dout.get(), {64}, 8));
  std::vector<std::int64_t> want(xs.rbegin(), xs.rend());
  EXPECT_EQ(dout.download(), want);
  // Its barrier is a syncthreads() statement: the object also has the block in regions, one call
  // per block (the per-thread entry above ran on fibers).
  ASSERT_FALSE(obj.block_name.empty());
  ASSERT_NE(hk.block_fn, nullptr);
  dout.upload(std::vector<std::int64_t>(64, 0));
  launch_host(hk, dim3(1), dim3(64), slots().array(dx.get(), {64}, 8).array(dout.get(), {64}, 8), nullptr,
              /*with_block_entry=*/true);
  EXPECT_EQ(dout.download(), want);
}

// The loaded code's unwind tables are registered: an assert's exception
// crosses its frames into the scheduler, which fails the launch.
TEST(HostObject, ExceptionsUnwindThroughLoadedCode) {
  CUFORGE_REQUIRE_CPU("host code");
  type_context tc;
  typed_builder k(tc, "asserts_loaded");
  var_id x = k.param("x", tc.array(tc.int64(), 1, array_layout::c));
  auto ok = k.cmp(op_id::lt, k.load(k.v(x), {k.cast(k.tid(0), tc.int64())}), k.i64(3));
  stmt_id check = k.assert_(ok, "value too large");  // (before k.sites(): argument order is unspecified)
  typed_module m = module_of({k.finish({check})}, k.sites());
  host_object obj = compile_host_object(m, host_config());
  EXPECT_EQ(obj.slots, 4u) << "the array's three and the error record's";
  host_kernel hk = load_host_object(obj);
  device_buffer<std::int64_t> dx(4);
  dx.upload({0, 1, 2, 3});
  // The failing thread writes the record and ends (its exit unwinds through the loaded frames); the others run.
  kernel_error_record record;
  launch_host(hk, dim3(1), dim3(4), slots().array(dx.get(), {4}, 8), &record);
  EXPECT_EQ(record.code, static_cast<std::int32_t>(kernel_error::assertion));
  EXPECT_EQ(record.thread[0], 3u);
  record = {};
  dx.upload({0, 1, 2, 2});
  launch_host(hk, dim3(1), dim3(4), slots().array(dx.get(), {4}, 8), &record);
  EXPECT_EQ(record.code, 0);
}

TEST(HostObject, BadBytesAreErrorsNotCrashes) {
  type_context tc;
  host_object good = compile_host_object(libm_kernel(tc), host_config());
  auto with_bytes = [&](std::string bytes) {
    host_object o = good;
    o.object = std::move(bytes);
    return o;
  };
  EXPECT_THROW(load_host_object(with_bytes("")), cuforge::logic_error);
  EXPECT_THROW(load_host_object(with_bytes("not an object file at all")), cuforge::logic_error);
  EXPECT_THROW(load_host_object(with_bytes(std::string("\x7f" "ELF") + std::string(60, '\0'))), cuforge::logic_error);
  EXPECT_THROW(load_host_object(with_bytes(good.object.substr(0, good.object.size() / 3))), cuforge::logic_error);
  host_object wrong_name = good;
  wrong_name.name = "no_such_kernel";
  EXPECT_THROW(load_host_object(wrong_name), cuforge::logic_error);
  // The failures left nothing behind that breaks the next load.
  EXPECT_NE(load_host_object(good).fn, nullptr);
}

TEST(HostObject, DeviceFunctionsAreRefused) {
  type_context tc;
  typed_builder d(tc, "helper", false);
  var_id a = d.param("a", tc.int64());
  typed_module m = module_of({d.finish({d.ret(d.v(a))}, tc.int64())});
  EXPECT_THROW(compile_host_object(m, host_config()), cuforge::logic_error);
}

TEST(HostObject, LoadsAreIndependentConcurrentAndReleased) {
  CUFORGE_REQUIRE_CPU("host code");
  type_context tc;
  host_object obj = compile_host_object(libm_kernel(tc, "shared_name"), host_config());
  // The same symbol loaded many times at once: each load is its own library.
  std::vector<std::string> errors(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      try {
        for (int r = 0; r < 10; ++r)
          if (load_host_object(obj).fn == nullptr) errors[static_cast<std::size_t>(t)] = "no function";
      } catch (const std::exception& e) {
        errors[static_cast<std::size_t>(t)] = e.what();
      }
    });
  for (auto& th : threads) th.join();
  for (const auto& e : errors) EXPECT_EQ(e, "");
  host_kernel kept = load_host_object(obj);
  { host_kernel dropped = load_host_object(obj); }  // released while `kept` lives
  std::vector<double> out = run_libm(kept, {4.0}, {1.0});
  EXPECT_DOUBLE_EQ(out[0], std::sin(4.0) + 2.0);
}

TEST(HostObject, HostTargetIdIsStable) {
  const std::string& id = host_target_id();
  EXPECT_FALSE(id.empty());
  EXPECT_EQ(&id, &host_target_id());
  EXPECT_NE(id.find("-"), std::string::npos) << id;  // starts with a triple
  // The features host code goes without (the bfloat16 conversions) are part of it: an object made
  // with them on is another target's.
  EXPECT_NE(id.find("-avx512bf16"), std::string::npos) << id;
  EXPECT_NE(id.find("-avxneconvert"), std::string::npos) << id;
}
