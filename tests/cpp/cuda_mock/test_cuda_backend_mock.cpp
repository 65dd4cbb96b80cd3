// The cuda backend over the mock driver (tests/mock_driver): the backend's
// plumbing (loader, contexts, memory, streams, events, modules, launch,
// errors) exercised without a GPU, through cuforge's public API where it
// has one and through detail::active() where it does not. main() points
// cuforge at the mock before anything can load a driver; the tests that
// need a driver loaded differently (the stub, no cuGetProcAddress, an older
// driver) run in a fresh process through gtest's death-test machinery.
#include "backends.hpp"
#include "cuda/driver.hpp"
#include "mock_cuda.hpp"
#include "sm90_limits.hpp"
#include "status.hpp"

#include <cuforge/devicearray/device_ndarray.hpp>
#include <cuforge/interop/cuda_array_interface.hpp>
#include <cuforge/interop/dlpack.hpp>
#include <cuforge/memory/allocation.hpp>
#include <cuforge/memory/deallocation.hpp>
#include <cuforge/runtime/backend.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/error.hpp>
#include <cuforge/runtime/event.hpp>
#include <cuforge/runtime/host_parallel.hpp>
#include <cuforge/runtime/launch.hpp>
#include <cuforge/runtime/memory_ops.hpp>
#include <cuforge/runtime/module.hpp>
#include <cuforge/runtime/stream.hpp>

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#ifndef CUFORGE_TEST_MOCK_DRIVER
#error "build with -DCUFORGE_TEST_MOCK_DRIVER=\"/path/to/libcuda_mock.so\""
#endif
#ifndef CUFORGE_TEST_STUB_DRIVER
#define CUFORGE_TEST_STUB_DRIVER ""
#endif

namespace {

using namespace cuforge;

#define EXPECT_CONTAINS(text, part)                                    \
  do {                                                                 \
    const std::string text_ = (text);                                  \
    EXPECT_NE(text_.find(part), std::string::npos) << "in: " << text_; \
  } while (0)

constexpr std::size_t mock_capacity = std::size_t{1} << 30;

cuforge_mock_stats stats() {
  static auto* get = [] {
    detail::active();  // the backend loads the mock; find that copy, not a second one
    void* lib = dlopen(CUFORGE_TEST_MOCK_DRIVER, RTLD_NOW | RTLD_NOLOAD);
    if (!lib) throw std::runtime_error("the mock driver is not loaded");
    auto* fn = reinterpret_cast<void (*)(cuforge_mock_stats*)>(dlsym(lib, "cuforge_mock_get_stats"));
    if (!fn) throw std::runtime_error("the mock driver has no cuforge_mock_get_stats");
    return fn;
  }();
  cuforge_mock_stats s{};
  get(&s);
  return s;
}

// What a test expects of a cuda_error, checked in one place.
template <class F>
cuda_error expect_cuda_error(F&& f, CUresult status) {
  try {
    f();
  } catch (const cuda_error& e) {
    EXPECT_EQ(e.status(), static_cast<int>(status)) << e.what();
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected cuda_error, got: " << e.what();
    throw;
  }
  ADD_FAILURE() << "expected cuda_error " << detail::status_name(status) << ", nothing was thrown";
  throw std::logic_error("no exception");
}

// Runs `body` in a fresh process (the threadsafe death-test style
// re-executes this binary), where no driver has been loaded yet: the body
// sets the environment, then probes. It exits 0 when all is well.
void expect_in_fresh_process(const std::function<bool()>& body, const char* stderr_regex) {
  EXPECT_EXIT(std::_Exit(body() ? 0 : 1), ::testing::ExitedWithCode(0), stderr_regex);
}

// PTX the mock accepts, naming its kernels for the mock's cuModuleGetFunction.
const char* const good_ptx = R"(//
// mock-kernels: scale add_one
.version 8.0
.target sm_90
.address_size 64
.visible .entry scale() { ret; }
.visible .entry add_one() { ret; }
)";

// A minimal ELF64 header whose section table "ends" after the text that
// follows it: the mock sizes a cubin the way the driver does.
std::vector<std::byte> fake_cubin(const std::string& text) {
  std::vector<std::byte> b(64 + text.size());
  const unsigned char ident[] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
  std::memcpy(b.data(), ident, sizeof ident);
  std::uint64_t shoff = b.size();
  std::uint16_t shentsize = 64, shnum = 0;
  std::memcpy(b.data() + 0x28, &shoff, 8);
  std::memcpy(b.data() + 0x3a, &shentsize, 2);
  std::memcpy(b.data() + 0x3c, &shnum, 2);
  std::memcpy(b.data() + 64, text.data(), text.size());
  return b;
}

std::vector<std::byte> fake_fatbin(const std::string& text) {
  std::vector<std::byte> b(16 + text.size());
  std::uint32_t magic = 0xBA55ED50u;
  std::uint16_t version = 1, header = 16;
  std::uint64_t payload = text.size();
  std::memcpy(b.data(), &magic, 4);
  std::memcpy(b.data() + 4, &version, 2);
  std::memcpy(b.data() + 6, &header, 2);
  std::memcpy(b.data() + 8, &payload, 8);
  std::memcpy(b.data() + 16, text.data(), text.size());
  return b;
}

void host_noop(cpu::thread_context*, void**) {}

// ---- Selection and loading ----------------------------------------------------

TEST(selection, the_cuda_backend_runs_on_the_mock) {
  EXPECT_EQ(active_backend(), backend_kind::cuda);
  EXPECT_TRUE(cuda_driver_usable());
  EXPECT_EQ(driver_version(), 13000);
  EXPECT_CONTAINS(backend_reason(), "CUDA driver 13.0, 1 device(s)");
  EXPECT_CONTAINS(backend_reason(), "libcuda_mock.so");
  const detail::cuda_probe& p = detail::probe_cuda();
  EXPECT_TRUE(p.usable);
  EXPECT_EQ(p.device_count, 1);
}

TEST(device, the_mock_gpu_has_sm90s_limits_from_the_shared_table) {
  device d = device::current();
  for (int a = 1; a < CU_DEVICE_ATTRIBUTE_MAX; ++a) {
    if (auto v = detail::sm90::limit(static_cast<CUdevice_attribute>(a))) {
      EXPECT_EQ(d.attribute(a), *v) << a;
    }
  }
}

TEST(selection, the_cuda_backend_runs_ptx_on_device_memory) {
  EXPECT_EQ(active_traits().kernel_format, module_image::format::ptx);
  EXPECT_FALSE(active_traits().device_memory_is_host);
}

TEST(selection, entry_points_come_from_cuGetProcAddress_at_our_abi_for_the_legacy_stream) {
  detail::active();
  const auto& r = detail::cuda::load();
  EXPECT_TRUE(r.via_get_proc_address);
  EXPECT_EQ(r.abi_version, std::min(CUDA_VERSION, 13000));
  cuforge_mock_stats s = stats();
  EXPECT_GT(s.get_proc_address_calls, 60);
  EXPECT_LE(s.get_proc_address_max_version, std::min(CUDA_VERSION, 13000));
  // Each entry at the ABI cuda.h declares: never the newer variants behind
  // old names (cuCtxSynchronize(CUcontext) at 13000, say).
  EXPECT_EQ(s.newer_variants_handed_out, 0);
  // Never the per-thread (_ptsz) variants: 0x2 is passed explicitly instead.
  EXPECT_EQ(s.get_proc_address_flags_seen,
            static_cast<unsigned long long>(CU_GET_PROC_ADDRESS_LEGACY_STREAM));
  EXPECT_EQ(s.init_calls, 1);
}

// ---- Devices and contexts -------------------------------------------------------

TEST(device, properties_and_attributes) {
  ASSERT_EQ(device::count(), 1);
  device d = device::get(0);
  EXPECT_EQ(d.name(), "cuforge mock device");
  EXPECT_EQ(d.cc(), (compute_capability{9, 0}));
  EXPECT_EQ(d.attribute(device_attribute::warp_size), 32);
  EXPECT_EQ(d.attribute(device_attribute::multiprocessor_count), 132);
  EXPECT_EQ(d.attribute(device_attribute::max_shared_memory_per_block_optin), 232448);
  EXPECT_EQ(d.attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR), 2048);
  EXPECT_EQ(d.total_memory(), mock_capacity);
  EXPECT_EQ(d.uuid(), "GPU-6d6f636b-2d67-7075-0000-000000000001");
  EXPECT_EQ(d.pci_bus_id(), "0000:65:00.0");
  memory_info m = d.memory();
  EXPECT_EQ(m.total, mock_capacity);
  EXPECT_LE(m.free, m.total);
}

TEST(device, an_unknown_attribute_is_a_cuda_error_naming_the_call) {
  cuda_error e = expect_cuda_error([] { detail::active().attribute(0, 100000); }, CUDA_ERROR_INVALID_VALUE);
  EXPECT_CONTAINS(e.call(), "cuDeviceGetAttribute(attribute=100000, device=0)");
  EXPECT_EQ(e.name(), "CUDA_ERROR_INVALID_VALUE");
  EXPECT_CONTAINS(e.message(), "[mock driver]");  // the driver's own text
}

TEST(device, queries_create_no_context) {
  detail::backend& b = detail::active();
  cuforge_mock_stats before = stats();
  (void)b.properties(0);
  (void)b.attribute(0, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  (void)b.device_count();
  EXPECT_EQ(stats().primary_retains, before.primary_retains);
}

TEST(device, activation_retains_once_and_is_free_once_current) {
  detail::backend& b = detail::active();
  b.activate(0);
  cuforge_mock_stats before = stats();
  for (int i = 0; i < 100; ++i) b.activate(0);
  (void)mem::kind_of(&before);
  cuforge_mock_stats after = stats();
  EXPECT_EQ(after.primary_retains, before.primary_retains);
  EXPECT_EQ(after.set_current_calls, before.set_current_calls);
}

TEST(device, every_thread_gets_the_context_made_current) {
  std::atomic<int> ok{0};
  auto work = [&] {
    void* p = mem::alloc_device(256, 0);  // the mock refuses without a current context
    mem::fill(p, 7, 1, 256, stream_view{});
    unsigned char back[256];
    mem::copy_sync(back, p, 256, stream_view{});
    mem::free_device(p, 0);
    if (back[0] == 7 && back[255] == 7) ok++;
  };
  std::thread t1(work), t2(work);
  t1.join();
  t2.join();
  EXPECT_EQ(ok.load(), 2);
}

TEST(device, synchronize_and_profiler) {
  device::get(0).synchronize();
  synchronize();
  profiler_start();
  EXPECT_EQ(stats().profiler_active, 1);
  profiler_stop();
  EXPECT_EQ(stats().profiler_active, 0);
}

// ---- Memory -------------------------------------------------------------------

TEST(memory, every_kind_allocates_and_is_recognised) {
  // kind_of, and allocation_of's kind read in the same driver call as the
  // range (what an import asks), agree for every kind.
  auto kind_everywhere = [](const void* p) {
    memory_kind k = mem::kind_of(p);
    auto info = mem::allocation_of(p);
    if (k == memory_kind::pageable) {
      EXPECT_FALSE(info.has_value());
    } else {
      EXPECT_TRUE(info.has_value());
      if (info) {
        EXPECT_EQ(info->kind, k) << to_string(k);
      }
    }
    return k;
  };
  const int live = stats().live_allocations;

  void* d = mem::alloc_device(1024, 0);
  EXPECT_EQ(kind_everywhere(d), memory_kind::device);
  EXPECT_EQ(kind_everywhere(static_cast<char*>(d) + 1000), memory_kind::device);

  void* pinned = mem::alloc_pinned(1024, false);
  EXPECT_EQ(stats().last_host_alloc_flags, unsigned{CU_MEMHOSTALLOC_PORTABLE});
  EXPECT_EQ(kind_everywhere(pinned), memory_kind::pinned);
  // Only DEVICEMAP memory has a device address (the driver's rule, kept by the mock).
  expect_cuda_error([&] { mem::device_pointer_of_mapped(pinned); }, CUDA_ERROR_INVALID_VALUE);

  void* mapped = mem::alloc_pinned(1024, true);
  EXPECT_EQ(stats().last_host_alloc_flags, unsigned{CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP});
  EXPECT_EQ(kind_everywhere(mapped), memory_kind::mapped);
  EXPECT_EQ(mem::device_pointer_of_mapped(mapped), mapped);

  void* managed = mem::alloc_managed(1024, 0);
  EXPECT_EQ(stats().last_managed_flags, unsigned{CU_MEM_ATTACH_GLOBAL});
  EXPECT_EQ(kind_everywhere(managed), memory_kind::managed);

  std::vector<char> buffer(4096);
  mem::host_register(buffer.data(), buffer.size(), true);
  EXPECT_EQ(stats().last_host_register_flags,
            unsigned{CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP});
  EXPECT_EQ(kind_everywhere(buffer.data() + 100), memory_kind::registered);
  EXPECT_EQ(mem::device_pointer_of_mapped(buffer.data()), buffer.data());
  cuda_error twice = expect_cuda_error([&] { mem::host_register(buffer.data(), buffer.size(), false); },
                                       CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
  EXPECT_CONTAINS(twice.call(), "cuMemHostRegister(");
  mem::host_unregister(buffer.data());
  EXPECT_EQ(kind_everywhere(buffer.data()), memory_kind::pageable);

  int on_stack = 0;
  EXPECT_EQ(kind_everywhere(&on_stack), memory_kind::pageable);
  EXPECT_EQ(detail::active().alloc(memory_kind::device, 0, 0), nullptr);

  mem::free_device(d, 0);
  mem::free_pinned(pinned);
  mem::free_pinned(mapped);
  mem::free_managed(managed);
  EXPECT_EQ(stats().live_allocations, live);
  EXPECT_EQ(mem::kind_of(pinned), memory_kind::pageable);
}

TEST(memory, host_copies_on_the_legacy_stream_are_the_drivers_synchronous_copy) {
  // numba's transfers: cuMemcpy, without a stream synchronize's round trip; on a
  // stream of one's own, the asynchronous copy and a synchronize.
  void* d = mem::alloc_device(64, 0);
  std::vector<char> host(64, 7), back(64, 0);
  const int copies = stats().sync_copies, syncs = stats().stream_synchronizes;
  mem::copy_host_sync(d, host.data(), 64, stream_view{});
  mem::copy_host_sync(back.data(), d, 64, stream_view{});
  EXPECT_EQ(stats().sync_copies - copies, 2);
  EXPECT_EQ(stats().stream_synchronizes - syncs, 0);
  EXPECT_EQ(back, host);
  stream s;
  mem::copy_host_sync(d, host.data(), 64, s);
  EXPECT_EQ(stats().sync_copies - copies, 2);
  EXPECT_EQ(stats().stream_synchronizes - syncs, 1);
  mem::free_device(d, 0);
}

TEST(memory, large_pageable_copies_go_through_pinned_staging_in_pieces) {
  // Pageable host memory <-> device from 32 MiB: 16 MiB pieces through two pinned buffers,
  // the host side of each copied by the host pool's threads; smaller copies and pinned memory
  // are the driver's one copy.
  if (cuforge::host_workers() < 2) GTEST_SKIP() << "one host worker: the driver stages copies itself";
  const std::size_t n = (std::size_t{40} << 20) + 12345;  // three pieces, the last a short one
  void* d = mem::alloc_device(n, 0);
  std::vector<unsigned char> host(n), back(n, 0);
  for (std::size_t i = 0; i < n; ++i) host[i] = static_cast<unsigned char>((i * 2654435761u) >> 13);
  int copies = stats().async_copies;
  mem::copy(d, host.data(), n, stream_view{});
  EXPECT_EQ(stats().async_copies - copies, 3);
  copies = stats().async_copies;
  mem::copy_sync(back.data(), d, n, stream_view{});
  EXPECT_EQ(stats().async_copies - copies, 3);
  EXPECT_TRUE(back == host);
  stream s;  // the synchronous host copies, on a stream of one's own and on the legacy one
  std::fill(back.begin(), back.end(), 0);
  mem::copy_host_sync(d, host.data() + 1, n - 1, s);
  mem::copy_host_sync(back.data(), d, n - 1, stream_view{});
  EXPECT_TRUE(std::equal(back.begin(), back.begin() + static_cast<std::ptrdiff_t>(n - 1), host.begin() + 1));
  copies = stats().async_copies;
  mem::copy(d, host.data(), std::size_t{32} << 20, stream_view{});  // exactly the threshold: two pieces
  EXPECT_EQ(stats().async_copies - copies, 2);
  copies = stats().async_copies;
  mem::copy(d, host.data(), (std::size_t{32} << 20) - 1, stream_view{});  // below it: the driver's
  EXPECT_EQ(stats().async_copies - copies, 1);
  void* pinned = mem::alloc_pinned(n, false);
  copies = stats().async_copies;
  mem::copy(d, pinned, n, stream_view{});  // pinned: the driver's one copy
  EXPECT_EQ(stats().async_copies - copies, 1);
  mem::free_pinned(pinned);
  mem::free_device(d, 0);
}

TEST(memory, importing_an_array_interface_asks_the_driver_once) {
  // The kind, the range and the owning device come from one
  // cuPointerGetAttributes: a foreign kernel argument costs one driver call.
  void* d = mem::alloc_device(1024, 0);
  interop::array_interface ai;
  ai.data = reinterpret_cast<std::uintptr_t>(d) + 64;
  ai.shape = {16, 4};
  ai.typestr = "<f4";
  const int before = stats().pointer_attribute_calls;
  {
    device_ndarray a = interop::import_interface(ai, {});
    EXPECT_EQ(stats().pointer_attribute_calls - before, 1);
    EXPECT_EQ(a.allocation()->kind(), memory_kind::device);
    EXPECT_EQ(a.allocation()->device(), 0);
  }
  ai.shape = {1024};  // runs past the allocation's end: the same call says so
  const int again = stats().pointer_attribute_calls;
  EXPECT_THROW((void)interop::import_interface(ai, {}), logic_error);
  EXPECT_EQ(stats().pointer_attribute_calls - again, 1);
  int on_stack = 0;  // not the driver's: a second question (kind_of) before the refusal
  ai.data = reinterpret_cast<std::uintptr_t>(&on_stack);
  ai.shape = {1};
  EXPECT_THROW((void)interop::import_interface(ai, {}), logic_error);
  mem::free_device(d, 0);
}

TEST(memory, a_dlpack_tensor_the_driver_does_not_know_is_refused_before_any_launch) {
  // A GPU run found these going into a launch that faulted (CUDA_ERROR_ILLEGAL_ADDRESS) and took the
  // context down: device memory the driver has no record of, and a "host" tensor over device memory.
  void* d = mem::alloc_device(256, 0);
  std::int64_t shape[] = {4};
  int deleted = 0;
  auto tensor = [&](void* data, dlpack::DLDeviceType where) {
    auto* t = new dlpack::DLManagedTensor{};
    t->dl_tensor.data = data;
    t->dl_tensor.device = {where, 0};
    t->dl_tensor.ndim = 1;
    t->dl_tensor.dtype = {dlpack::kDLFloat, 64, 1};
    t->dl_tensor.shape = shape;
    t->manager_ctx = &deleted;
    t->deleter = [](dlpack::DLManagedTensor* self) {
      ++*static_cast<int*>(self->manager_ctx);
      delete self;
    };
    return t;
  };
  auto refusal = [](auto&& f) -> std::string {
    try {
      f();
    } catch (const logic_error& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_NE(refusal([&] { (void)interop::import_legacy(tensor(reinterpret_cast<void*>(0x10), dlpack::kDLCUDA)); })
                .find("not in memory this process has mapped on the device"),
            std::string::npos);
  EXPECT_NE(refusal([&] { (void)interop::import_legacy(tensor(d, dlpack::kDLCPU), true); }).find("is device memory"),
            std::string::npos);
  EXPECT_EQ(deleted, 2);  // each refused tensor's deleter ran, once
  {
    device_ndarray ok = interop::import_legacy(tensor(d, dlpack::kDLCUDA));  // the driver's own: imported
    EXPECT_EQ(ok.allocation()->kind(), memory_kind::device);
  }
  memory::synchronize();  // the release waits for the work queued before it
  EXPECT_EQ(deleted, 3);
  mem::free_device(d, 0);
}

TEST(memory, out_of_memory_is_an_exception_naming_size_and_kind) {
  const std::size_t huge = std::size_t{1} << 40;
  struct case_ {
    std::function<void*()> alloc;
    const char* kind;
  };
  stream s;
  const case_ cases[] = {
      {[&] { return mem::alloc_device(huge, 0); }, "device memory on device 0"},
      {[&] { return mem::alloc_managed(huge, 0); }, "managed memory on device 0"},
      {[&] { return mem::alloc_pinned(huge, false); }, "pinned host memory on device 0"},
      {[&] { return mem::alloc_async(huge, s); }, "device memory (stream-ordered pool) on device 0"},
  };
  for (const case_& c : cases) {
    try {
      c.alloc();
      ADD_FAILURE() << "allocating 1 TiB of " << c.kind << " succeeded";
    } catch (const out_of_memory& e) {
      EXPECT_EQ(e.bytes(), huge);
      EXPECT_CONTAINS(e.what(), c.kind);
      EXPECT_CONTAINS(e.what(), std::to_string(huge));
      EXPECT_CONTAINS(e.what(), "CUDA_ERROR_OUT_OF_MEMORY");
    }
  }
  EXPECT_THROW(mem::alloc_device(huge, 0), std::bad_alloc);  // generic C++ code catches it too
  // The process goes on.
  void* p = mem::alloc_device(1 << 20, 0);
  EXPECT_NE(p, nullptr);
  mem::free_device(p, 0);
}

TEST(memory, copies_round_trip_on_every_kind_of_stream) {
  std::vector<std::uint32_t> in(1000), out(1000, 0);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint32_t>(i * 2654435761u);
  const std::size_t bytes = in.size() * sizeof(std::uint32_t);
  stream own({0, true});
  for (stream_view sv : {stream_view{}, stream_view::per_thread_default(), own.view()}) {
    void* a = mem::alloc_device(bytes, 0);
    void* b = mem::alloc_device(bytes, 0);
    std::fill(out.begin(), out.end(), 0u);
    mem::copy(a, in.data(), bytes, sv);
    mem::copy(b, a, bytes, sv);
    mem::copy_sync(out.data(), b, bytes, sv);
    EXPECT_EQ(out, in);
    mem::free_device(a, 0);
    mem::free_device(b, 0);
  }
}

TEST(memory, a_failed_copy_names_the_call) {
  void* small = mem::alloc_device(1024, 0);
  std::vector<char> host(2048);
  cuda_error e = expect_cuda_error([&] { mem::copy(host.data(), small, 2048, stream_view{}); },
                                   CUDA_ERROR_INVALID_VALUE);
  EXPECT_CONTAINS(e.call(), "cuMemcpyAsync(");
  EXPECT_CONTAINS(e.call(), "bytes=2048");
  EXPECT_CONTAINS(e.call(), "stream=0x1");
  EXPECT_CONTAINS(e.what(), "[CUDA_ERROR_INVALID_VALUE]");
  mem::free_device(small, 0);
}

TEST(memory, fill_by_element_size) {
  void* p = mem::alloc_device(64, 0);
  unsigned char back[64];
  mem::fill(p, 0xAB, 1, 64, stream_view{});
  mem::copy_sync(back, p, 64, stream_view{});
  for (unsigned char c : back) EXPECT_EQ(c, 0xAB);

  mem::fill(p, 0xBEEF, 2, 32, stream_view{});
  std::uint16_t back16[32];
  mem::copy_sync(back16, p, 64, stream_view{});
  for (std::uint16_t v : back16) EXPECT_EQ(v, 0xBEEF);

  mem::fill(p, 0xDEADBEEF, 4, 16, stream_view{});
  std::uint32_t back32[16];
  mem::copy_sync(back32, p, 64, stream_view{});
  for (std::uint32_t v : back32) EXPECT_EQ(v, 0xDEADBEEFu);
  // A count in elements, not bytes: one more element runs past the allocation.
  expect_cuda_error([&] { mem::fill(p, 0, 4, 17, stream_view{}); }, CUDA_ERROR_INVALID_VALUE);
  mem::free_device(p, 0);
}

TEST(memory, stream_ordered_pool) {
  ASSERT_TRUE(mem::pools_supported(0));
  stream s;
  const int pool_allocs = stats().pool_allocations;
  void* p = mem::alloc_async(4096, s);
  EXPECT_EQ(stats().pool_allocations, pool_allocs + 1);
  EXPECT_EQ(mem::kind_of(p), memory_kind::device);
  mem::fill(p, 0x11223344, 4, 1024, s);
  mem::free_async(p, s);
  s.synchronize();
  mem::pool_set_release_threshold(0, 1ull << 33);
  EXPECT_EQ(stats().pool_release_threshold, 1ull << 33);
  const int trims = stats().pool_trim_calls;
  mem::pool_trim(0, 4096);
  EXPECT_EQ(stats().pool_trim_calls, trims + 1);
  EXPECT_EQ(stats().pool_trim_keep, 4096u);
}

TEST(memory, frees_that_fail_report_and_do_not_throw) {
  int not_device = 0;
  ::testing::internal::CaptureStderr();
  detail::active().free(memory_kind::device, &not_device, 0);
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_CONTAINS(err, "cuMemFree(ptr=0x");
  EXPECT_CONTAINS(err, "CUDA_ERROR_INVALID_VALUE");
}

TEST(memory, ipc_exports_plain_device_memory_and_opens_the_handle) {
  void* p = mem::alloc_device(10000, 0);
  auto info = mem::ipc_export(static_cast<char*>(p) + 100);
  EXPECT_EQ(info.offset, 100u);
  EXPECT_EQ(info.bytes, 10000u);
  ASSERT_EQ(info.handle.rfind("cuforge-cuda-ipc/1 ", 0), 0u) << info.handle;
  EXPECT_EQ(info.handle.size(), std::string("cuforge-cuda-ipc/1 ").size() + 128);
  const int open_before = stats().ipc_open_handles;
  void* q = mem::ipc_open(info.handle);
  EXPECT_EQ(q, p) << "the mock maps the allocation where it is";
  EXPECT_EQ(stats().ipc_open_handles, open_before + 1);
  mem::ipc_close(q);
  EXPECT_EQ(stats().ipc_open_handles, open_before);
  mem::free_device(p, 0);
}

TEST(memory, ipc_refuses_pool_memory_and_bad_handles_with_the_reason) {
  stream s;
  void* p = mem::alloc_async(4096, s);
  try {
    (void)mem::ipc_export(p);
    ADD_FAILURE() << "pool memory was exported";
  } catch (const cuda_error& e) {
    EXPECT_CONTAINS(std::string(e.what()), "stream-ordered pool");
    EXPECT_CONTAINS(std::string(e.what()), "CUFORGE_MEMORY_RESOURCE=device");
  }
  mem::free_async(p, s);
  s.synchronize();
  for (const char* bad : {"garbage", "cuforge-cuda-ipc/1 zz", "cuforge-cpu-ipc/1 pid=1 fd=3 token=1 bytes=1 span=1"}) {
    try {
      (void)mem::ipc_open(bad);
      ADD_FAILURE() << bad << " was opened";
    } catch (const cuda_error& e) {
      EXPECT_CONTAINS(std::string(e.what()), std::string(bad).find("cpu") != std::string::npos
                                                 ? "made on the cpu backend"
                                                 : "not an IPC handle of cuforge's cuda backend");
    }
  }
}

// ---- Streams and events -----------------------------------------------------------

TEST(stream, priorities_flags_and_queries) {
  EXPECT_EQ(stream::priority_range(), std::make_pair(0, -5));
  stream s({-3, true});
  EXPECT_EQ(stats().last_stream_flags, unsigned{CU_STREAM_NON_BLOCKING});
  EXPECT_EQ(s.view().priority(), -3);
  EXPECT_TRUE(s.view().is_non_blocking());
  EXPECT_TRUE(s.is_idle());
  s.synchronize();
  stream blocking;
  EXPECT_EQ(stats().last_stream_flags, unsigned{CU_STREAM_DEFAULT});
  EXPECT_FALSE(blocking.view().is_non_blocking());
  EXPECT_EQ(stream_view{}.priority(), 0);
  EXPECT_FALSE(stream_view::per_thread_default().is_non_blocking());
  stream_view::per_thread_default().synchronize();
  EXPECT_TRUE(stream_view{}.is_idle());
}

TEST(stream, the_device_of_a_foreign_handle) {
  stream s;
  EXPECT_EQ(stream_view::from_handle(s.handle()).device(), 0);
  EXPECT_EQ(detail::active().stream_device(stream_view::per_thread_handle), 0);
  cuda_error e = expect_cuda_error([] { stream_view::from_handle(0x1234); }, CUDA_ERROR_INVALID_HANDLE);
  EXPECT_CONTAINS(e.call(), "cuStreamGetDevice(stream=0x1234)");
}

TEST(stream, callbacks_run_and_their_exceptions_stay_inside) {
  stream s;
  const int before = stats().host_callbacks;
  std::atomic<int> ran{0};
  ::testing::internal::CaptureStderr();
  s.add_callback([&] { ran++; });
  s.add_callback([] { throw std::runtime_error("callback failure for the test"); });
  s.add_callback([&] { ran++; });
  s.synchronize();
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(ran.load(), 2);
  EXPECT_EQ(stats().host_callbacks, before + 3);
  EXPECT_CONTAINS(err, "callback failure for the test");
}

TEST(event, record_query_synchronize_and_time) {
  event a, b;
  a.record();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  b.record();
  b.synchronize();
  EXPECT_TRUE(a.query());
  float ms = elapsed_ms(a, b);
  EXPECT_GE(ms, 15.0f);
  EXPECT_LT(ms, 5000.0f);
}

TEST(event, flags_and_waits) {
  event quiet({false, true});
  EXPECT_EQ(stats().last_event_flags, unsigned{CU_EVENT_DISABLE_TIMING | CU_EVENT_BLOCKING_SYNC});
  stream producer, consumer;
  quiet.record(producer);
  consumer.wait(quiet);
  quiet.wait(stream_view::per_thread_default());
  consumer.synchronize();
  event timed;
  timed.record();
  // The driver refuses to time an event made without timing; the backend
  // reports it as the driver said.
  cuda_error e =
      expect_cuda_error([&] { detail::active().event_elapsed_ms(quiet.handle(), timed.handle(), 0); },
                        CUDA_ERROR_INVALID_HANDLE);
  EXPECT_CONTAINS(e.call(), "cuEventElapsedTime(");
}

// ---- Modules and launch -------------------------------------------------------------

TEST(module, ptx_loads_with_the_jit_options) {
  module m = module::load(module_image::from_ptx(good_ptx), module::options{40, true, 3});
  cuforge_mock_stats s = stats();
  EXPECT_EQ(s.last_module_format, 0);
  EXPECT_EQ(s.jit_max_registers, 40);
  EXPECT_EQ(s.jit_optimization_level, 3);
  EXPECT_EQ(s.jit_line_info, 1);
  EXPECT_CONTAINS(m.info_log(), "mock JIT: 2 kernel(s) [scale add_one]");

  module plain = module::load(module_image::from_ptx(good_ptx));
  s = stats();
  EXPECT_EQ(s.jit_max_registers, 0);  // no CU_JIT_MAX_REGISTERS option at all
  EXPECT_EQ(s.jit_optimization_level, 4);
  EXPECT_EQ(s.jit_line_info, 0);
}

TEST(module, ptx_with_debug_information_loads_with_g_at_o0) {
  // debug=True kernels carry DWARF sections; the JIT refuses them at -O4.
  std::string debug_ptx = good_ptx;
  auto at = debug_ptx.find(".target sm_");
  ASSERT_NE(at, std::string::npos);
  debug_ptx.insert(debug_ptx.find('\n', at), ", debug");
  cuda_error e = expect_cuda_error([&] { module::load(module_image::from_ptx(debug_ptx)); }, CUDA_ERROR_INVALID_PTX);
  EXPECT_CONTAINS(e.what(), "Optimized debugging not supported");
  module::options o;
  o.generate_debug_info = true;  // optimization_level stays 4: debug info implies 0
  module m = module::load(module_image::from_ptx(debug_ptx), o);
  cuforge_mock_stats s = stats();
  EXPECT_EQ(s.jit_debug_info, 1);
  EXPECT_EQ(s.jit_optimization_level, 0);
}

TEST(module, a_missing_kernel_is_named) {
  module m = module::load(module_image::from_ptx(good_ptx));
  EXPECT_EQ(m.get_kernel("scale").name(), "scale");
  cuda_error e = expect_cuda_error([&] { m.get_kernel("no_such_kernel"); }, CUDA_ERROR_NOT_FOUND);
  EXPECT_CONTAINS(e.what(), "no kernel named 'no_such_kernel'");
  EXPECT_CONTAINS(e.call(), "cuModuleGetFunction(name=no_such_kernel)");
}

TEST(module, a_jit_failure_carries_the_jit_log) {
  std::string bad = ".version 8.0\n.target sm_90\n// MOCK_BAD_PTX here\n";
  cuda_error e =
      expect_cuda_error([&] { module::load(module_image::from_ptx(bad)); }, CUDA_ERROR_INVALID_PTX);
  EXPECT_CONTAINS(e.message(), "JIT error log:");
  EXPECT_CONTAINS(e.message(), "line 3; error   : MOCK_BAD_PTX");
  EXPECT_CONTAINS(e.call(), "cuModuleLoadDataEx(image=ptx");
  EXPECT_CONTAINS(e.what(), "MOCK_BAD_PTX");
}

TEST(module, an_image_with_host_kernels_only_is_not_supported) {
  module_image host = module_image::from_host({cpu_kernel_symbol{"noop", &host_noop}});
  cuda_error e = expect_cuda_error([&] { module::load(host); }, CUDA_ERROR_NOT_SUPPORTED);
  EXPECT_CONTAINS(e.message(), "no code for the cuda backend (host kernels only)");
  // With PTX beside them, the PTX loads.
  module_image both = module_image::from_host({cpu_kernel_symbol{"noop", &host_noop}});
  both.add(module_image::from_ptx(good_ptx));
  EXPECT_NO_THROW(module::load(both).get_kernel("add_one"));
}

TEST(module, machine_code_is_preferred_to_ptx) {
  module_image image = module_image::from_ptx(good_ptx);
  image.add(module_image::from_fatbin(fake_fatbin("// mock-kernels: from_fatbin\n")));
  module f = module::load(image);
  EXPECT_EQ(stats().last_module_format, 2);
  EXPECT_NO_THROW(f.get_kernel("from_fatbin"));
  image.add(module_image::from_cubin(fake_cubin("// mock-kernels: from_cubin\n")));
  module c = module::load(image);
  EXPECT_EQ(stats().last_module_format, 1);
  EXPECT_NO_THROW(c.get_kernel("from_cubin"));
  expect_cuda_error([&] { c.get_kernel("scale"); }, CUDA_ERROR_NOT_FOUND);
}

TEST(module, kernel_attributes_and_dynamic_shared_memory) {
  module m = module::load(module_image::from_ptx(good_ptx), module::options{24, false, 4});
  kernel k = m.get_kernel("scale");
  kernel_attributes a = k.attributes();
  EXPECT_EQ(a.max_threads_per_block, 1024);
  EXPECT_EQ(a.num_registers, 24);
  EXPECT_EQ(a.ptx_version, 80);
  EXPECT_EQ(a.binary_version, 90);
  EXPECT_EQ(a.max_dynamic_shared_bytes, 48 * 1024);
  k.set_max_dynamic_shared_bytes(100000);
  EXPECT_EQ(k.attributes().max_dynamic_shared_bytes, 100000);
  expect_cuda_error([&] { k.set_max_dynamic_shared_bytes(1 << 20); }, CUDA_ERROR_INVALID_VALUE);
}

TEST(launch, the_configuration_reaches_the_driver) {
  module m = module::load(module_image::from_ptx(good_ptx));
  kernel k = m.get_kernel("scale");
  stream s;
  float x = 2.0f;
  int n = 10;
  void* params[] = {&x, &n};
  launch_config cfg;
  cfg.grid = dim3(4, 2);
  cfg.block = dim3(128);
  cfg.shared_bytes = 1024;
  cfg.stream = s;
  const int before = stats().launches;
  launch(k, cfg, params);
  cuforge_mock_stats st = stats();
  EXPECT_EQ(st.launches, before + 1);
  EXPECT_STREQ(st.last_kernel, "scale");
  EXPECT_EQ(st.last_grid[0], 4u);
  EXPECT_EQ(st.last_grid[1], 2u);
  EXPECT_EQ(st.last_grid[2], 1u);
  EXPECT_EQ(st.last_block[0], 128u);
  EXPECT_EQ(st.last_shared, 1024u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(st.last_stream), s.handle());
  EXPECT_EQ(st.last_params, params);

  cfg.stream = stream_view::per_thread_default();
  launch(k, cfg, x, n);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(stats().last_stream), stream_view::per_thread_handle);
}

TEST(launch, a_refused_launch_names_the_call) {
  module m = module::load(module_image::from_ptx(good_ptx));
  kernel k = m.get_kernel("add_one");
  launch_config cfg;
  cfg.block = dim3(64);
  cfg.shared_bytes = 60000;  // within the device's opt-in limit, but the kernel has not opted in
  cuda_error e =
      expect_cuda_error([&] { launch(k, cfg, static_cast<void**>(nullptr)); }, CUDA_ERROR_INVALID_VALUE);
  EXPECT_CONTAINS(e.call(), "cuLaunchKernel(");
  EXPECT_CONTAINS(e.call(), "grid=(1, 1, 1), block=(64, 1, 1), shared=60000");
}

TEST(launch, cooperative) {
  module m = module::load(module_image::from_ptx(good_ptx));
  kernel k = m.get_kernel("scale");
  // The mock fits 2048 / 256 = 8 blocks per multiprocessor, on 132 of them.
  EXPECT_EQ(detail::active().max_cooperative_blocks(k.handle(), dim3(256), 0, 0), 8u * 132u);
  launch_config cfg;
  cfg.grid = dim3(8 * 132);
  cfg.block = dim3(256);
  cfg.cooperative = true;
  const int before = stats().cooperative_launches;
  launch(k, cfg, static_cast<void**>(nullptr));
  EXPECT_EQ(stats().cooperative_launches, before + 1);
  cfg.grid = dim3(8 * 132 + 1);
  EXPECT_THROW(launch(k, cfg, static_cast<void**>(nullptr)), logic_error);
}

TEST(launch, max_potential_block_size_asks_the_occupancy_of_each_candidate) {
  module m = module::load(module_image::from_ptx(good_ptx));
  kernel k = m.get_kernel("scale");
  // The mock fits min(32, 2048 / threads) blocks per multiprocessor: every size from 64 up fills it
  // with 2048 threads, and the largest of equals wins, as with cuOccupancyMaxPotentialBlockSize.
  EXPECT_EQ(max_potential_block_size(k), 1024u);
  // 120000 bytes of dynamic shared memory: one block per multiprocessor, so the largest block.
  EXPECT_EQ(max_potential_block_size(k, 120000), 1024u);
}

// ---- close() --------------------------------------------------------------------

TEST(close, releases_everything_and_work_goes_on) {
  void* p = mem::alloc_device(4096, 0);
  (void)p;  // reclaimed by the reset, never freed by hand
  auto s = std::make_unique<stream>();
  module m = module::load(module_image::from_ptx(good_ptx));
  ASSERT_GT(stats().live_allocations, 0);
  cuforge_mock_stats before = stats();

  close();
  cuforge_mock_stats after = stats();
  EXPECT_EQ(after.primary_resets, before.primary_resets + 1);
  EXPECT_EQ(after.primary_releases, before.primary_releases + 1);
  EXPECT_EQ(after.live_allocations, 0);
  EXPECT_EQ(after.device_bytes_in_use, 0u);
  expect_cuda_error([&] { s->synchronize(); }, CUDA_ERROR_CONTEXT_IS_DESTROYED);
  expect_cuda_error([&] { m.get_kernel("scale"); }, CUDA_ERROR_CONTEXT_IS_DESTROYED);
  s.reset();  // destroying a stream of a closed context touches nothing

  // Fresh contexts on demand, on this thread and others.
  void* q = mem::alloc_device(4096, 0);
  EXPECT_EQ(mem::kind_of(q), memory_kind::device);
  EXPECT_EQ(stats().contexts_created, after.contexts_created + 1);
  EXPECT_EQ(stats().primary_retains, after.primary_retains + 1);
  std::thread([] {
    void* r = mem::alloc_device(64, 0);
    mem::free_device(r, 0);
  }).join();
  stream fresh;
  fresh.synchronize();
  EXPECT_NO_THROW(module::load(module_image::from_ptx(good_ptx)).get_kernel("scale"));
  mem::free_device(q, 0);
}

// ---- Other drivers, each in a fresh process -------------------------------------

TEST(probe, the_stub_library_is_not_a_driver) {
  if (!std::filesystem::exists(CUFORGE_TEST_STUB_DRIVER))
    GTEST_SKIP() << "no stub libcuda.so in this toolkit";
  expect_in_fresh_process(
      [] {
        setenv("CUFORGE_CUDA_DRIVER", CUFORGE_TEST_STUB_DRIVER, 1);
        const detail::cuda_probe& p = detail::probe_cuda();
        std::fprintf(stderr, "usable=%d reason=%s\n", p.usable, p.reason.c_str());
        bool ok = !p.usable && !cuda_driver_usable() && detail::cuda::load().stub;
        try {
          active_backend();  // CUFORGE_BACKEND=cuda: no silent fallback to cpu
          ok = false;
        } catch (const cuda_error& e) {
          std::fprintf(stderr, "selection: %s\n", e.what());
        }
        return ok;
      },
      "usable=0 reason=stub driver library \\(no GPU driver installed\\).*selection: .*stub driver library");
}

TEST(probe, a_missing_library_says_why) {
  expect_in_fresh_process(
      [] {
        setenv("CUFORGE_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
        const detail::cuda_probe& p = detail::probe_cuda();
        std::fprintf(stderr, "usable=%d reason=%s\n", p.usable, p.reason.c_str());
        return !p.usable;
      },
      "usable=0 reason=/nonexistent/libcuda.so.1: cannot open shared object file");
}

TEST(probe, without_cuGetProcAddress_the_versioned_names_serve) {
  expect_in_fresh_process(
      [] {
        setenv("CUFORGE_MOCK_NO_GET_PROC_ADDRESS", "1", 1);
        bool ok = detail::probe_cuda().usable && !detail::cuda::load().via_get_proc_address;
        std::uint32_t in = 0x12345678, out = 0;
        void* p = mem::alloc_device(4, 0);
        mem::copy(p, &in, 4, stream_view{});
        mem::copy_sync(&out, p, 4, stream_view{});
        mem::free_device(p, 0);
        ok = ok && out == in && detail::cuda::drv().cuStreamGetDevice != nullptr;
        std::fprintf(stderr, "fallback ok=%d\n", ok);
        return ok;
      },
      "fallback ok=1");
}

TEST(probe, an_older_driver_gets_older_entry_points) {
  expect_in_fresh_process(
      [] {
        setenv("CUFORGE_MOCK_DRIVER_VERSION", "12040", 1);
        const detail::cuda_probe& p = detail::probe_cuda();
        bool ok = p.usable && p.driver_version == 12040 && detail::cuda::load().abi_version == 12040 &&
                  stats().get_proc_address_max_version <= 12040 &&
                  detail::cuda::drv().cuStreamGetDevice == nullptr;  // new in 12.8
        stream s;
        ok = ok && stream_view::from_handle(s.handle()).device() == 0;  // cuStreamGetCtx + cuCtxGetDevice
        event a, b;
        a.record(s);
        b.record(s);
        ok = ok && elapsed_ms(a, b) >= 0.0f;
        void* q = mem::alloc_device(64, 0);  // the current context was put back
        mem::free_device(q, 0);
        std::fprintf(stderr, "%s: old driver ok=%d\n", p.reason.c_str(), ok);
        return ok;
      },
      "CUDA driver 12.4, 1 device\\(s\\).*old driver ok=1");
}

TEST(probe, the_stream_device_fallback_on_a_current_driver) {
  expect_in_fresh_process(
      [] {
        setenv("CUFORGE_MOCK_HIDE", "cuStreamGetDevice", 1);
        bool ok = detail::probe_cuda().usable && detail::cuda::drv().cuStreamGetDevice == nullptr;
        stream s;
        ok = ok && stream_view::from_handle(s.handle()).device() == 0;
        synchronize();
        ok = ok && stats().newer_variants_handed_out == 0;
        std::fprintf(stderr, "fallback ok=%d\n", ok);
        return ok;
      },
      "fallback ok=1");
}

TEST(probe, a_driver_older_than_12_is_refused) {
  expect_in_fresh_process(
      [] {
        setenv("CUFORGE_MOCK_DRIVER_VERSION", "11080", 1);
        const detail::cuda_probe& p = detail::probe_cuda();
        std::fprintf(stderr, "usable=%d reason=%s\n", p.usable, p.reason.c_str());
        return !p.usable;
      },
      "usable=0 reason=CUDA driver 11.8 is older than 12.0");
}

}  // namespace

int main(int argc, char** argv) {
  // Before anything can load a driver: this process runs the cuda backend
  // over the mock, whatever the environment said.
  setenv("CUFORGE_BACKEND", "cuda", 1);
  setenv("CUFORGE_CUDA_DRIVER", CUFORGE_TEST_MOCK_DRIVER, 1);
  setenv("CUFORGE_MOCK_DEVICE_MEMORY", std::to_string(mock_capacity).c_str(), 1);
  unsetenv("CUFORGE_MOCK_NO_GET_PROC_ADDRESS");
  unsetenv("CUFORGE_MOCK_DRIVER_VERSION");
  unsetenv("CUFORGE_MOCK_HIDE");
  ::testing::InitGoogleTest(&argc, argv);
  // Fresh-process tests must start with no driver loaded: re-execute, not fork.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  return RUN_ALL_TESTS();
}
