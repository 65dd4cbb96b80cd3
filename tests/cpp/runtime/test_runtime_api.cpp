// The runtime's public API on the active backend: backend selection,
// devices, modules, kernel launch (results, validation, failures) and
// close(). Streams and events are in test_streams_events.cpp.

#include <cuforge/runtime/backend.hpp>
#include <cuforge/runtime/cpu_kernel.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/error.hpp>
#include <cuforge/runtime/event.hpp>
#include <cuforge/runtime/launch.hpp>
#include <cuforge/runtime/memory_ops.hpp>
#include <cuforge/runtime/module.hpp>
#include <cuforge/runtime/stream.hpp>

#include <cuda.h>
#include <gtest/gtest.h>

#include "sm90_limits.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "test_kernels.hpp"
#include "test_support.hpp"

namespace {

using namespace cuforge;
using cuforge::testing::device_buffer;
using cuforge::testing::gate;
using cuforge::testing::mapped_buffer;
using cuforge::testing::one_per_element;
using cuforge::testing::test_module;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// ---------------------------------------------------------------------------
// Backend selection

TEST(Backend, SelectionIsConsistentWithTheEnvironmentAndDriver) {
  backend_kind kind = active_backend();
  EXPECT_EQ(active_backend(), kind) << "the backend must never change once chosen";
  std::string reason = backend_reason();
  ASSERT_FALSE(reason.empty());
  const char* env = std::getenv("CUFORGE_BACKEND");
  std::string want = env && *env ? env : "auto";
  if (kind == backend_kind::cpu) {
    EXPECT_EQ(to_string(kind), "cpu");
    EXPECT_TRUE(contains(reason, "cpu backend")) << reason;
    EXPECT_EQ(driver_version(), 0);
    if (want == "cpu")
      EXPECT_TRUE(contains(reason, "CUFORGE_BACKEND=cpu")) << reason;
    else
      EXPECT_FALSE(cuda_driver_usable()) << "auto selection must pick a usable driver: " << reason;
  } else {
    EXPECT_EQ(to_string(kind), "cuda");
    EXPECT_TRUE(contains(reason, "cuda backend")) << reason;
    EXPECT_TRUE(cuda_driver_usable());
    EXPECT_GT(driver_version(), 0);
    EXPECT_NE(want, "cpu");
  }
}

TEST(Device, ReportsSm90sLimitsFromTheSharedTable) {
  // The cpu backend's device and the mock GPU read one table (runtime/src/sm90_limits.hpp).
  if (active_backend() != backend_kind::cpu) GTEST_SKIP() << "a real GPU reports its own limits";
  device d = device::current();
  int checked = 0;
  for (int a = 1; a < CU_DEVICE_ATTRIBUTE_MAX; ++a) {
    if (auto v = detail::sm90::limit(static_cast<CUdevice_attribute>(a))) {
      EXPECT_EQ(d.attribute(a), *v) << "attribute " << a;
      ++checked;
    }
  }
  EXPECT_GE(checked, 16);
  EXPECT_EQ(d.cc(), (compute_capability{9, 0}));
}

TEST(Backend, TraitsSayWhatCodeAboveTheRuntimeNeedsToKnow) {
  const backend_traits& t = active_traits();
  EXPECT_EQ(&t, &active_traits()) << "one value per process";
  if (active_backend() == backend_kind::cpu) {
    EXPECT_EQ(t.kernel_format, module_image::format::host);
    EXPECT_TRUE(t.device_memory_is_host);
  } else {
    EXPECT_EQ(t.kernel_format, module_image::format::ptx);
    EXPECT_FALSE(t.device_memory_is_host);
  }
}

// ---------------------------------------------------------------------------
// Devices

TEST(Device, CountGetCurrentAndAll) {
  int n = device::count();
  ASSERT_GE(n, 1);
  auto all = device::all();
  ASSERT_EQ(static_cast<int>(all.size()), n);
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(all[i].ordinal(), i);
    EXPECT_EQ(device::get(i), all[i]);
  }
  EXPECT_EQ(device::current().ordinal(), 0) << "device 0 is current until another is selected";
  device::get(0).make_current();
  EXPECT_EQ(device::current(), device::get(0));
}

TEST(Device, OutOfRangeOrdinalsAreLogicErrors) {
  int n = device::count();
  CUFORGE_EXPECT_THROW_WITH(logic_error, "out of range", device::get(n));
  CUFORGE_EXPECT_THROW_WITH(logic_error, "device ordinal -1", device::get(-1));
  CUFORGE_EXPECT_THROW_WITH(logic_error, std::to_string(n + 100), device::get(n + 100));
  // Objects made for a device that does not exist fail as the driver would.
  CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_INVALID_DEVICE, stream s(stream::options{}, n));
  CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_INVALID_DEVICE, event e(event::options{}, n));
}

TEST(Device, CurrentDeviceIsPerThread) {
  device::get(device::count() - 1).make_current();
  int seen = -1;
  std::thread([&] { seen = device::current().ordinal(); }).join();
  EXPECT_EQ(seen, 0) << "a new thread starts on device 0";
  EXPECT_EQ(device::current().ordinal(), device::count() - 1);
  device::get(0).make_current();
}

TEST(Device, NameCapabilityAttributesAndMemory) {
  device d = device::get(0);
  EXPECT_FALSE(d.name().empty());
  compute_capability cc = d.cc();
  EXPECT_GE(cc.major, 3);
  EXPECT_EQ(cc.major, d.attribute(device_attribute::compute_capability_major));
  EXPECT_EQ(cc.minor, d.attribute(device_attribute::compute_capability_minor));
  EXPECT_EQ(d.attribute(device_attribute::warp_size), 32);
  EXPECT_EQ(d.attribute(device_attribute::max_threads_per_block), 1024);
  EXPECT_EQ(d.attribute(device_attribute::max_block_dim_x), 1024);
  EXPECT_EQ(d.attribute(device_attribute::max_block_dim_z), 64);
  EXPECT_EQ(d.attribute(device_attribute::max_grid_dim_y), 65535);
  EXPECT_GE(d.attribute(device_attribute::multiprocessor_count), 1);
  EXPECT_GE(d.attribute(device_attribute::max_shared_memory_per_block), 48 * 1024);
  EXPECT_GE(d.attribute(device_attribute::max_shared_memory_per_block_optin),
            d.attribute(device_attribute::max_shared_memory_per_block));
  // By number, as CUdevice_attribute.
  EXPECT_EQ(d.attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE), 32);
  EXPECT_GT(d.total_memory(), 0u);
  memory_info m = d.memory();
  EXPECT_GT(m.total, 0u);
  EXPECT_LE(m.free, m.total);
  std::string uuid = d.uuid();
  EXPECT_EQ(uuid.rfind("GPU-", 0), 0u) << uuid;
  EXPECT_EQ(uuid.size(), 40u) << uuid;
  EXPECT_FALSE(d.pci_bus_id().empty());
  EXPECT_NO_THROW(d.synchronize());
  EXPECT_NO_THROW(synchronize());
}

TEST(Device, OnCallbackThreadIsFalseOnOrdinaryThreads) {
  EXPECT_FALSE(on_callback_thread());
  bool other = true;
  std::thread([&] { other = on_callback_thread(); }).join();
  EXPECT_FALSE(other);
}

// ---------------------------------------------------------------------------
// Module images and modules

TEST(ModuleImage, ConstructionChecksItsInput) {
  EXPECT_THROW(module_image::from_ptx(""), logic_error);
  EXPECT_THROW(module_image::from_cubin({}), logic_error);
  EXPECT_THROW(module_image::from_fatbin({}), logic_error);
  EXPECT_THROW(module_image::from_host({}), logic_error);
  EXPECT_THROW(module_image::from_host({cpu_kernel_symbol{.name = "", .fn = nullptr}}), logic_error);
  CUFORGE_EXPECT_THROW_WITH(logic_error, "nameless",
                            module_image::from_host({cpu_kernel_symbol{.name = "nameless", .fn = nullptr}}));
  CUFORGE_EXPECT_THROW_WITH(logic_error, "/nonexistent/k.ptx", module_image::from_file("/nonexistent/k.ptx"));

  auto img = cuforge::testing::test_kernels_image();
  EXPECT_TRUE(img.has(module_image::format::ptx));
  EXPECT_TRUE(img.has(module_image::format::host));
  EXPECT_FALSE(img.has(module_image::format::cubin));
  EXPECT_EQ(img.host_kernels().size(), 6u);
}

TEST(ModuleImage, FromFileChoosesByExtension) {
  std::string dir = ::testing::TempDir();
  std::string ptx_path = dir + "cuforge_test_image.ptx";
  std::string bad_path = dir + "cuforge_test_image.txt";
  {
    std::ofstream(ptx_path) << ".version 8.0\n";
    std::ofstream(bad_path) << "text";
  }
  auto img = module_image::from_file(ptx_path);
  EXPECT_TRUE(img.has(module_image::format::ptx));
  EXPECT_EQ(img.ptx(), ".version 8.0\n");
  CUFORGE_EXPECT_THROW_WITH(logic_error, "unknown kind", module_image::from_file(bad_path));
  std::remove(ptx_path.c_str());
  std::remove(bad_path.c_str());
}

TEST(Module, LoadsTheTestImageAndFindsItsKernels) {
  auto mod = test_module();
  EXPECT_NE(mod.handle(), 0u);
  EXPECT_EQ(mod.device(), 0);
  for (const char* name : {"vector_add", "block_sum", "barrier_handshake", "histogram", "fill_int", "slow_increment"}) {
    auto k = mod.get_kernel(name);
    EXPECT_EQ(k.name(), name);
    EXPECT_NE(k.handle(), 0u);
    EXPECT_EQ(k.device(), 0);
    EXPECT_EQ(k.generation(), context_generation());
    EXPECT_GE(k.attributes().max_threads_per_block, 1);
  }
}

TEST(Module, MissingKernelIsNotFoundAndNamed) {
  auto mod = test_module();
  auto e = cuforge::testing::catch_cuda_error([&] { (void)mod.get_kernel("no_such_kernel_xyz"); });
  ASSERT_TRUE(e.has_value()) << "get_kernel of a missing name must throw cuda_error";
  EXPECT_EQ(e->status(), CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(e->name(), "CUDA_ERROR_NOT_FOUND");
  EXPECT_TRUE(contains(e->what(), "no_such_kernel_xyz")) << e->what();
}

TEST(Module, ImageWithoutCodeForThisBackendIsNotSupported) {
  // The cpu backend runs only host code; the cuda backend only PTX/cubins.
  module_image img = active_backend() == backend_kind::cpu
                         ? module_image::from_ptx(".version 8.0\n.target sm_90\n.address_size 64\n")
                         : module_image::from_host({cpu_kernel_symbol{
                               .name = "k", .fn = [](cpu::thread_context*, void**) {}}});
  CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_NOT_SUPPORTED, (void)module::load(img));
}

TEST(Module, KernelKeepsItsModuleLoaded) {
  mapped_buffer<int> x(100);
  std::optional<kernel> k;
  {
    auto mod = test_module();
    k = mod.get_kernel("fill_int");
  }
  int n = 100;
  launch(*k, one_per_element(100), x.device(), 42, n);
  stream_view{}.synchronize();
  EXPECT_TRUE(x.all(42));
}

// ---------------------------------------------------------------------------
// Launch: results

TEST(Launch, VectorAddOverAGridStrideLoop) {
  auto k = test_module().get_kernel("vector_add");
  const int n = 100003;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i);
    y[i] = static_cast<float>(2 * (n - i));
  }
  device_buffer<float> dx(n), dy(n), dr(n);
  dx.upload(x);
  dy.upload(y);
  mem::fill(dr.get(), 0xffffffffu, 4, n, {});
  // Far fewer threads than elements: every thread loops over the grid stride.
  launch(k, launch_config{.grid = dim3(7), .block = dim3(64)}, dr.get(), static_cast<const float*>(dx.get()),
         static_cast<const float*>(dy.get()), n);
  auto r = dr.download();
  int wrong = 0;
  for (int i = 0; i < n; ++i)
    if (r[i] != x[i] + y[i]) ++wrong;
  EXPECT_EQ(wrong, 0);
}

TEST(Launch, BlockSumWithDynamicSharedMemoryForEveryBlockSize) {
  auto k = test_module().get_kernel("block_sum");
  for (unsigned block : {1u, 2u, 32u, 64u, 128u, 256u, 512u, 1024u}) {
    SCOPED_TRACE("block " + std::to_string(block));
    const unsigned blocks = 5;
    const int n = static_cast<int>(blocks * block - block / 3);  // the last block is partial
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[i] = i % 7 - 3 + i % 1000;
    device_buffer<int> din(n), dout(blocks);
    din.upload(in);
    launch(k, launch_config{.grid = dim3(blocks), .block = dim3(block), .shared_bytes = block * sizeof(int)},
           static_cast<const int*>(din.get()), dout.get(), n);
    auto out = dout.download();
    for (unsigned b = 0; b < blocks; ++b) {
      long long want = 0;
      for (unsigned t = 0; t < block; ++t) {
        auto i = static_cast<int>(b * block + t);
        if (i < n) want += in[i];
      }
      EXPECT_EQ(out[b], want) << "block index " << b;
    }
  }
}

TEST(Launch, BarrierHandshakeHoldsEveryThread) {
  auto k = test_module().get_kernel("barrier_handshake");
  // Every thread reads the flag between two barriers, so on a GPU too all
  // threads of a block leave in the same round, whatever the block size.
  std::vector<unsigned> sizes = {1, 2, 31, 32, 33, 100, 256, 1024};
  cuforge::testing::watchdog dog("barrier_handshake");
  for (unsigned block : sizes) {
    SCOPED_TRACE("block " + std::to_string(block));
    const unsigned blocks = 3;
    device_buffer<int> rounds(blocks * block);
    mem::fill(rounds.get(), 0, 4, blocks * block, {});
    launch(k, launch_config{.grid = dim3(blocks), .block = dim3(block), .shared_bytes = sizeof(int)}, rounds.get());
    auto r = rounds.download();
    for (std::size_t i = 0; i < r.size(); ++i) ASSERT_EQ(r[i], 3) << "thread " << i;
  }
}

TEST(Launch, HistogramAtomicsCountExactly) {
  auto k = test_module().get_kernel("histogram");
  const int n = 200000, bins = 37;
  std::vector<int> in(n);
  std::vector<unsigned> want(bins, 0);
  for (int i = 0; i < n; ++i) {
    in[i] = static_cast<int>((static_cast<long long>(i) * 7919) % bins);
    ++want[in[i]];
  }
  device_buffer<int> din(n);
  device_buffer<unsigned> counts(bins);
  din.upload(in);
  mem::fill(counts.get(), 0, 4, bins, {});
  launch(k, launch_config{.grid = dim3(64), .block = dim3(256)}, static_cast<const int*>(din.get()), counts.get(), n);
  EXPECT_EQ(counts.download(), want);
}

TEST(Launch, ParameterValuesAreCapturedAtLaunch) {
  auto k = test_module().get_kernel("fill_int");
  stream s;
  mapped_buffer<int> x(256);
  gate g;
  s.add_callback(g.hold());
  int value = 5, n = 256;
  launch(k, one_per_element(256, s), x.device(), value, n);
  value = 99;  // the queued launch must not see this
  n = 0;
  g.open();
  s.synchronize();
  EXPECT_TRUE(x.all(5));
}

TEST(Launch, MultiDimensionalGridAndBlock) {
  auto k = test_module().get_kernel("fill_int");
  // fill_int indexes by x only: a (4,3,2) grid of (32,2,1) blocks writes the
  // first 4*32 elements, six times each.
  mapped_buffer<int> x(200);
  int n = 200;
  launch(k, launch_config{.grid = dim3(4, 3, 2), .block = dim3(32, 2, 1)}, x.device(), 8, n);
  stream_view{}.synchronize();
  for (int i = 0; i < 200; ++i) ASSERT_EQ(x[i], i < 128 ? 8 : 0) << i;
}

// ---------------------------------------------------------------------------
// Launch: validation happens before anything is queued

TEST(Launch, InvalidConfigurationsAreLogicErrorsAndRunNothing) {
  auto k = test_module().get_kernel("fill_int");
  mapped_buffer<int> x(64);
  int n = 64;
  device d = device::get(0);
  auto optin = static_cast<std::size_t>(d.attribute(device_attribute::max_shared_memory_per_block_optin));
  struct bad {
    launch_config cfg;
    const char* says;
  };
  std::vector<bad> cases = {
      {{.grid = dim3(0), .block = dim3(64)}, "must have every dimension >= 1"},
      {{.grid = dim3(1, 0, 1), .block = dim3(64)}, "must have every dimension >= 1"},
      {{.grid = dim3(1), .block = dim3(0)}, "must have every dimension >= 1"},
      {{.grid = dim3(1), .block = dim3(64, 1, 0)}, "must have every dimension >= 1"},
      {{.grid = dim3(1), .block = dim3(1025)}, "1025 threads"},
      {{.grid = dim3(1), .block = dim3(32, 32, 2)}, "2048 threads"},
      {{.grid = dim3(1), .block = dim3(1, 1, 65)}, "exceeds the device's limits"},
      {{.grid = dim3(1, 65536, 1), .block = dim3(64)}, "exceeds the device's limits"},
      {{.grid = dim3(1, 1, 65536), .block = dim3(64)}, "exceeds the device's limits"},
      {{.grid = dim3(1), .block = dim3(64), .shared_bytes = optin + 1}, "dynamic shared memory"},
      {{.grid = dim3(1u << 20), .block = dim3(1024), .cooperative = true}, "co-resident"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.says);
    try {
      launch(k, c.cfg, x.device(), 1, n);
      ADD_FAILURE() << "launch did not throw";
    } catch (const logic_error& e) {
      EXPECT_TRUE(contains(e.what(), c.says)) << e.what();
      EXPECT_TRUE(contains(e.what(), "fill_int")) << "the message names the kernel: " << e.what();
    }
  }
  EXPECT_NO_THROW(stream_view{}.synchronize()) << "a rejected launch must leave no error behind";
  EXPECT_TRUE(x.all(0)) << "a rejected launch must not run";
  // The limits themselves are accepted.
  launch(k, launch_config{.grid = dim3(1), .block = dim3(1024), .shared_bytes = 0}, x.device(), 2, n);
  launch(k, launch_config{.grid = dim3(1), .block = dim3(64, 1, 1)}, x.device(), 3, n);
  stream_view{}.synchronize();
  EXPECT_TRUE(x.all(3));
}

TEST(Launch, CooperativeLaunchThatFitsRuns) {
  if (device::get(0).attribute(device_attribute::cooperative_launch) == 0)
    GTEST_SKIP() << "the device does not support cooperative launches";
  auto k = test_module().get_kernel("fill_int");
  mapped_buffer<int> x(256);
  int n = 256;
  launch(k, launch_config{.grid = dim3(2), .block = dim3(128), .cooperative = true}, x.device(), 4, n);
  stream_view{}.synchronize();
  EXPECT_TRUE(x.all(4));
}

// ---------------------------------------------------------------------------
// What only the driver does: the PTX JIT and the opt-in shared memory limit

TEST(CudaOnly, JitLoadsWithOptionsAndReportsKernelAttributes) {
  CUFORGE_REQUIRE_CUDA();
  auto mod = module::load(cuforge::testing::test_kernels_image(),
                          module_options{.max_registers = 32, .generate_line_info = true});
  auto a = mod.get_kernel("vector_add").attributes();
  EXPECT_GT(a.num_registers, 0);
  EXPECT_LE(a.num_registers, 32) << "max_registers reached the JIT";
  EXPECT_GT(a.ptx_version, 0);
  EXPECT_GT(a.binary_version, 0);
  EXPECT_GE(a.max_threads_per_block, 1);
  EXPECT_THROW((void)module::load(cuforge::testing::test_kernels_image(), module_options{.optimization_level = 5}),
               logic_error);
}

TEST(CudaOnly, BadPtxFailsToLoadWithTheJitLog) {
  CUFORGE_REQUIRE_CUDA();
  auto e = cuforge::testing::catch_cuda_error([] {
    (void)module::load(module_image::from_ptx(
        ".version 7.0\n.target sm_52\n.address_size 64\n.visible .entry broken() { not_an_instruction; }\n"));
  });
  ASSERT_TRUE(e.has_value()) << "loading invalid PTX must throw cuda_error";
  EXPECT_NE(e->status(), CUDA_SUCCESS);
  EXPECT_TRUE(contains(e->what(), "cuModuleLoadDataEx")) << e->what();
  EXPECT_TRUE(contains(e->what(), "JIT error log")) << e->what();
}

TEST(CudaOnly, DynamicSharedMemoryAbove48KiBNeedsTheOptIn) {
  CUFORGE_REQUIRE_CUDA();
  const std::size_t bytes = 64 * 1024;
  if (static_cast<std::size_t>(device::get(0).attribute(device_attribute::max_shared_memory_per_block_optin)) < bytes)
    GTEST_SKIP() << "the device cannot opt in to 64 KiB of shared memory per block";
  auto k = test_module().get_kernel("block_sum");
  const int n = 256;
  std::vector<int> in(n, 2);
  device_buffer<int> din(n), dout(1);
  din.upload(in);
  launch_config cfg{.grid = dim3(1), .block = dim3(256), .shared_bytes = bytes};
  // Past the default 48 KiB the driver refuses the launch until the kernel opts in.
  auto refused = cuforge::testing::catch_cuda_error(
      [&] { launch(k, cfg, static_cast<const int*>(din.get()), dout.get(), n); });
  EXPECT_TRUE(refused.has_value());
  k.set_max_dynamic_shared_bytes(static_cast<int>(bytes));
  EXPECT_GE(k.attributes().max_dynamic_shared_bytes, static_cast<int>(bytes));
  launch(k, cfg, static_cast<const int*>(din.get()), dout.get(), n);
  EXPECT_EQ(dout.download(), std::vector<int>{2 * n});
}

// ---------------------------------------------------------------------------
// Kernel failures on the cpu backend: host kernels written against
// cpu_kernel.hpp, which only the cpu backend runs.

void throwing_kernel(cpu::thread_context* ctx, int* out) {
  unsigned i = ctx->block_idx.x * ctx->block_dim.x + ctx->thread_idx.x;
  if (ctx->block_idx.x == 1 && ctx->thread_idx.x == 5) throw std::runtime_error("boom in block 1, thread 5");
  out[i] = 1;
}

void grid_sync_kernel(cpu::thread_context* ctx, int* out) {
  cpu::grid_sync(ctx);
  out[0] = 1;
}

void barrier_in_loop_kernel(cpu::thread_context* ctx, int* out) {
  cpu::syncthreads(ctx);
  out[ctx->thread_idx.x] = 1;
}

void plain_fill(cpu::thread_context* ctx, int* out, int value) {
  out[ctx->block_idx.x * ctx->block_dim.x + ctx->thread_idx.x] = value;
}

module_image failing_kernels_image() {
  std::vector<cpu_kernel_symbol> k;
  k.push_back({.name = "throws", .fn = &cpu::entry<&throwing_kernel>, .uses_barrier = false,
               .param_sizes = cpu::param_sizes<&throwing_kernel>()});
  k.push_back({.name = "throws_fibers", .fn = &cpu::entry<&throwing_kernel>, .uses_barrier = true,
               .param_sizes = cpu::param_sizes<&throwing_kernel>()});
  k.push_back({.name = "grid_sync", .fn = &cpu::entry<&grid_sync_kernel>,
               .param_sizes = cpu::param_sizes<&grid_sync_kernel>()});
  k.push_back({.name = "barrier_in_loop", .fn = &cpu::entry<&barrier_in_loop_kernel>, .uses_barrier = false,
               .param_sizes = cpu::param_sizes<&barrier_in_loop_kernel>()});
  k.push_back({.name = "small_blocks", .fn = &cpu::entry<&plain_fill>, .uses_barrier = false,
               .max_threads_per_block = 64, .param_sizes = cpu::param_sizes<&plain_fill>()});
  k.push_back({.name = "unsized", .fn = &cpu::entry<&plain_fill>, .uses_barrier = false});
  return module_image::from_host(std::move(k));
}

TEST(CpuKernelFailure, ExceptionSurfacesAtSynchronizeAndTheStreamKeepsWorking) {
  CUFORGE_REQUIRE_CPU("host-code kernels run only on the cpu backend");
  auto mod = module::load(failing_kernels_image());
  auto fill = test_module().get_kernel("fill_int");
  for (const char* name : {"throws", "throws_fibers"}) {
    SCOPED_TRACE(name);
    stream s;
    device_buffer<int> out(4 * 32);
    mem::fill(out.get(), 0, 4, out.size(), s);
    // The launch itself is queued and returns: the failure is asynchronous.
    ASSERT_NO_THROW(launch(mod.get_kernel(name), launch_config{.grid = dim3(4), .block = dim3(32), .stream = s},
                           out.get()));
    auto e = cuforge::testing::catch_cuda_error([&] { s.synchronize(); });
    ASSERT_TRUE(e.has_value()) << "the kernel's exception must surface at synchronize";
    EXPECT_EQ(e->status(), CUDA_ERROR_LAUNCH_FAILED);
    EXPECT_TRUE(contains(e->what(), "boom in block 1, thread 5")) << e->what();
    // The other threads ran to completion.
    auto v = out.download(s);
    for (int i = 0; i < 4 * 32; ++i) {
      if (i == 32 + 5) continue;
      ASSERT_EQ(v[i], 1) << i;
    }
    // Reported once; the stream still works.
    EXPECT_NO_THROW(s.synchronize());
    int n = 4 * 32;
    launch(fill, one_per_element(n, s), out.get(), 7, n);
    EXPECT_NO_THROW(s.synchronize());
    EXPECT_EQ(out.download(s), std::vector<int>(n, 7));
  }
}

TEST(CpuKernelFailure, BarrierMisuseFailsTheLaunchInsteadOfHanging) {
  CUFORGE_REQUIRE_CPU("host-code kernels run only on the cpu backend");
  cuforge::testing::watchdog dog("barrier misuse");
  auto mod = module::load(failing_kernels_image());
  device_buffer<int> out(64);
  stream s;
  launch(mod.get_kernel("grid_sync"), launch_config{.grid = dim3(2), .block = dim3(4), .stream = s}, out.get());
  CUFORGE_EXPECT_THROW_WITH(cuda_error, "cooperative", s.synchronize());
  launch(mod.get_kernel("barrier_in_loop"), launch_config{.grid = dim3(1), .block = dim3(4), .stream = s}, out.get());
  CUFORGE_EXPECT_THROW_WITH(cuda_error, "uses_barrier", s.synchronize());
  EXPECT_NO_THROW(s.synchronize());
}

TEST(CpuKernelFailure, KernelLimitIsCheckedAtLaunch) {
  CUFORGE_REQUIRE_CPU("host-code kernels run only on the cpu backend");
  auto mod = module::load(failing_kernels_image());
  auto k = mod.get_kernel("small_blocks");
  EXPECT_EQ(k.attributes().max_threads_per_block, 64);
  device_buffer<int> out(128);
  CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_INVALID_VALUE,
                            launch(k, launch_config{.grid = dim3(1), .block = dim3(128)}, out.get(), 1));
  EXPECT_NO_THROW(stream_view{}.synchronize());
  EXPECT_NO_THROW(launch(k, launch_config{.grid = dim3(2), .block = dim3(64)}, out.get(), 1));
  EXPECT_EQ(out.download(), std::vector<int>(128, 1));
}

TEST(CpuKernelFailure, KernelWithoutParameterSizesFinishesBeforeLaunchReturns) {
  CUFORGE_REQUIRE_CPU("host-code kernels run only on the cpu backend");
  auto mod = module::load(failing_kernels_image());
  mapped_buffer<int> out(256);
  stream s;
  // Its parameters cannot be copied, so the launch must not outlive them.
  launch(mod.get_kernel("unsized"), launch_config{.grid = dim3(2), .block = dim3(128), .stream = s}, out.device(), 9);
  EXPECT_TRUE(out.all(9));
}

// ---------------------------------------------------------------------------
// close(): everything made before is invalid, new objects work

TEST(Close, ObjectsMadeBeforeAreDestroyedAndNewOnesWork) {
  std::uint64_t before = context_generation();
  {
    auto mod = test_module();
    auto k = mod.get_kernel("fill_int");
    stream s;
    event e;
    e.record(s);
    s.synchronize();

    close();
    EXPECT_EQ(context_generation(), before + 1);

    CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_CONTEXT_IS_DESTROYED, s.synchronize());
    CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_CONTEXT_IS_DESTROYED, (void)s.is_idle());
    CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_CONTEXT_IS_DESTROYED, s.wait(e));
    CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_CONTEXT_IS_DESTROYED, s.add_callback([] {}));
    CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_CONTEXT_IS_DESTROYED, e.record());
    CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_CONTEXT_IS_DESTROYED, (void)e.query());
    CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_CONTEXT_IS_DESTROYED, e.synchronize());
    CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_CONTEXT_IS_DESTROYED, e.wait(stream_view{}));
    CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_CONTEXT_IS_DESTROYED, (void)e.elapsed_ms(e));
    CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_CONTEXT_IS_DESTROYED, (void)mod.get_kernel("fill_int"));
    CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_CONTEXT_IS_DESTROYED, (void)k.attributes());
    CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_CONTEXT_IS_DESTROYED, k.set_max_dynamic_shared_bytes(0));
    int n = 1;
    int dummy = 0;
    CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_CONTEXT_IS_DESTROYED,
                              launch(k, launch_config{.grid = dim3(1), .block = dim3(1)}, &dummy, 1, n));
    // An old event is refused by new streams too.
    stream fresh;
    CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_CONTEXT_IS_DESTROYED, fresh.wait(e));
    CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_CONTEXT_IS_DESTROYED, stream_view{}.wait(e));
    CUFORGE_EXPECT_THROW_WITH(cuda_error, "closed", s.synchronize());
    CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_CONTEXT_IS_DESTROYED, check_generation(before, "thing"));
    EXPECT_NO_THROW(check_generation(context_generation(), "thing"));
    // The old objects are destroyed here, after close(): that must be quiet.
  }
  // New objects live in fresh contexts.
  auto k = test_module().get_kernel("fill_int");
  stream s;
  event e;
  mapped_buffer<int> x(300);
  int n = 300;
  launch(k, one_per_element(300, s), x.device(), 11, n);
  e.record(s);
  e.synchronize();
  EXPECT_TRUE(e.query());
  EXPECT_TRUE(x.all(11));
  EXPECT_NO_THROW(s.synchronize());
  EXPECT_NO_THROW(synchronize());
}

TEST(Close, StaleStreamsPassedAsViewsAreRejected) {
  CUFORGE_REQUIRE_CPU("the driver cannot tell a CUstream of a destroyed context from a live one");
  std::optional<stream> old(std::in_place);
  close();
  auto k = test_module().get_kernel("fill_int");
  mapped_buffer<int> x(64);
  int n = 64;
  event e;
  // A stream owner converts to a view, which carries no generation: the
  // backend must still refuse the dead handle rather than touch it.
  CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_INVALID_HANDLE, launch(k, one_per_element(64, *old), x.device(), 1, n));
  CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_INVALID_HANDLE, e.record(*old));
  CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_INVALID_HANDLE, mem::fill(x.device(), 0, 4, 64, *old));
  CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_INVALID_HANDLE, old->view().synchronize());
  old.reset();
  EXPECT_NO_THROW(synchronize());
  EXPECT_TRUE(x.all(0));
}

// ---------------------------------------------------------------------------
// Several devices. The cpu backend has as many as CUFORGE_CPU_DEVICES says
// (read once, at selection), so OnTwoCpuDevices reruns this executable
// with two for the MultiDevice tests; on the cuda backend they run directly
// where there are several GPUs.

TEST(MultiDevice, OnTwoCpuDevices) {
  CUFORGE_REQUIRE_CPU("there, the MultiDevice tests run directly on machines with several GPUs");
  if (device::count() >= 2) GTEST_SKIP() << "already running with several devices";
  EXPECT_EQ(cuforge::testing::rerun_self("MultiDevice.*:-MultiDevice.OnTwoCpuDevices", "CUFORGE_CPU_DEVICES", "2"), 0)
      << "a MultiDevice test failed on two cpu devices (its output is above)";
}

TEST(MultiDevice, CurrentDeviceChoosesWhereObjectsGo) {
  CUFORGE_REQUIRE_DEVICES(2);
  EXPECT_NE(device::get(0).uuid(), device::get(1).uuid());
  EXPECT_NE(device::get(0).pci_bus_id(), device::get(1).pci_bus_id());
  device::get(1).make_current();
  EXPECT_EQ(device::current().ordinal(), 1);
  stream s;
  event e;
  auto mod = test_module();
  EXPECT_EQ(s.view().device(), 1);
  EXPECT_EQ(e.device(), 1);
  EXPECT_EQ(mod.device(), 1);
  EXPECT_EQ(stream_view{}.device(), 1);
  EXPECT_EQ(stream_view::per_thread_default().device(), 1);
  int other = -1;
  std::thread([&] { other = device::current().ordinal(); }).join();
  EXPECT_EQ(other, 0) << "the current device is per thread";
  device::get(0).make_current();
  EXPECT_EQ(stream_view{}.device(), 0);
}

TEST(MultiDevice, StreamsBelongToTheirDevice) {
  CUFORGE_REQUIRE_DEVICES(2);
  stream s1(stream::options{}, 1);
  EXPECT_EQ(s1.view().device(), 1);
  EXPECT_EQ(stream_view::from_handle(s1.handle()).device(), 1);
  EXPECT_EQ(stream_view::from_handle(s1.handle(), 1), s1.view());
  CUFORGE_EXPECT_THROW_WITH(logic_error, "belongs to device 1", (void)stream_view::from_handle(s1.handle(), 0));
  EXPECT_EQ(stream_view::legacy_default(1).device(), 1);
  EXPECT_EQ(stream::priority_range(1), stream::priority_range(0));
}

TEST(MultiDevice, KernelsRunOnEveryDevice) {
  CUFORGE_REQUIRE_DEVICES(2);
  mapped_buffer<int> x(256);
  int n = 256;
  for (int dev = 0; dev < 2; ++dev) {
    auto k = module::load(cuforge::testing::test_kernels_image(), dev).get_kernel("fill_int");
    EXPECT_EQ(k.device(), dev);
    stream s(stream::options{}, dev);
    launch(k, one_per_element(256, s), x.device(), 10 + dev, n);
    s.synchronize();
    EXPECT_TRUE(x.all(10 + dev)) << "device " << dev;
  }
}

TEST(MultiDevice, DefaultStreamsOfDifferentDevicesDoNotOrder) {
  CUFORGE_REQUIRE_DEVICES(2);
  auto k = test_module().get_kernel("fill_int");  // device 0
  mapped_buffer<int> x(64);
  int n = 64;
  gate g;
  stream_view::legacy_default(1).add_callback(g.hold());
  ASSERT_TRUE(g.wait_reached());
  launch(k, one_per_element(64, stream_view::legacy_default(0)), x.device(), 3, n);
  EXPECT_TRUE(cuforge::testing::eventually([] { return stream_view::legacy_default(0).is_idle(); }))
      << "device 0's legacy stream waited for device 1's";
  EXPECT_TRUE(x.all(3));
  // Nor does a device wait for another's work when synchronised.
  EXPECT_NO_THROW(device::get(0).synchronize());
  EXPECT_FALSE(stream_view::legacy_default(1).is_idle());
  g.open();
  device::get(1).synchronize();
  EXPECT_TRUE(stream_view::legacy_default(1).is_idle());
}

TEST(MultiDevice, StreamWaitsForAnEventOfAnotherDevice) {
  CUFORGE_REQUIRE_DEVICES(2);
  auto k = test_module().get_kernel("fill_int");  // device 0
  mapped_buffer<int> x(64), y(64);
  int n = 64;
  stream a(stream::options{}, 1);
  event e(event::options{}, 1);
  gate g;
  a.add_callback(g.hold());
  e.record(a);
  stream b(stream::options{.non_blocking = true});  // device 0; the legacy stream must not wait for it
  b.wait(e);
  launch(k, one_per_element(64, b), x.device(), 1, n);
  // The same through the event, onto device 0's legacy default stream.
  e.wait(stream_view::legacy_default(0));
  launch(k, one_per_element(64, stream_view::legacy_default(0)), y.device(), 2, n);
  ASSERT_TRUE(g.wait_reached());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(x.all(0)) << "stream::wait did not hold device 0's stream";
  EXPECT_TRUE(y.all(0)) << "event::wait did not hold device 0's legacy default stream";
  g.open();
  b.synchronize();
  stream_view::legacy_default(0).synchronize();
  EXPECT_TRUE(x.all(1));
  EXPECT_TRUE(y.all(2));
}

}  // namespace

// The cpu backend's device memory (cpu_execution.md, "Device memory"): mappings of 2 MiB and more
// start on a 2 MiB boundary (for transparent huge pages), and a freed mapping is what the next
// allocation of its size gets, its pages already faulted in; pool_trim gives them back.
TEST(CpuMemory, FreedMappingsAreReusedAndLargeOnesAreHugePageAligned) {
  if (active_backend() != backend_kind::cpu) GTEST_SKIP() << "the cpu backend's allocator";
  constexpr std::size_t huge = std::size_t{2} << 20;
  void* a = mem::alloc_device(3 * huge + 100, 0);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a) % huge, 0u);
  static_cast<unsigned char*>(a)[3 * huge + 99] = 7;  // the whole size is there
  mem::free_device(a, 0);
  void* b = mem::alloc_device(3 * huge + 200, 0);  // the same mapping size: the freed one
  EXPECT_EQ(b, a);
  EXPECT_EQ(static_cast<unsigned char*>(b)[3 * huge + 99], 7) << "not zeroed, as on a GPU";
  void* c = mem::alloc_device(5 * huge, 0);  // another size: a mapping of its own
  EXPECT_NE(c, b);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(c) % huge, 0u);
  // Smaller mappings (1 to 2 MiB) are reused too.
  void* d = mem::alloc_device(std::size_t{1} << 20, 0);
  mem::free_device(d, 0);
  EXPECT_EQ(mem::alloc_device(std::size_t{1} << 20, 0), d);
  mem::free_device(d, 0);
  mem::free_device(b, 0);
  mem::free_device(c, 0);
  mem::pool_trim(0, 0);  // unmaps what was kept; allocating goes on as before
  void* e = mem::alloc_device(3 * huge, 0);
  EXPECT_EQ(mem::kind_of(e), memory_kind::device);
  mem::free_device(e, 0);
  mem::pool_trim(0, 0);
}
