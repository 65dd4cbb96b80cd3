// External memory: the callback resource an external memory manager plugs
// in through, the replaceable host resources, the live-allocation count, and
// the checks of inter-process sharing that one process can make (the
// round trip between processes is tests/python/memory/test_ipc.py's).

#include <cuforge/memory/allocation.hpp>
#include <cuforge/memory/callback_memory_resource.hpp>
#include <cuforge/memory/current_resource.hpp>
#include <cuforge/memory/deallocation.hpp>
#include <cuforge/memory/device_memory_resource.hpp>
#include <cuforge/memory/pinned_memory_resource.hpp>
#include <cuforge/runtime/backend.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/error.hpp>
#include <cuforge/runtime/memory_ops.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace cuforge;
using namespace cuforge::memory;

// A manager of its own: device memory from the default resource, every
// request and return written down.
struct ledger {
  std::map<void*, std::size_t> live;
  std::size_t allocs = 0, frees = 0, mismatched = 0;
};

std::shared_ptr<callback_memory_resource> counted(std::shared_ptr<ledger> book) {
  auto upstream = default_resource();
  return std::make_shared<callback_memory_resource>(
      [book, upstream](std::size_t bytes, stream_view s) {
        void* p = upstream->allocate(bytes, s);
        book->live[p] = bytes;
        ++book->allocs;
        return p;
      },
      [book, upstream](void* p, std::size_t bytes, stream_view s) {
        auto it = book->live.find(p);
        if (it == book->live.end() || it->second != bytes) ++book->mismatched;
        if (it != book->live.end()) book->live.erase(it);
        ++book->frees;
        upstream->deallocate(p, bytes, s);
      },
      memory_kind::device, 0, "counted");
}

struct restore_defaults {
  ~restore_defaults() {
    set_current_resource(nullptr);
    set_pinned_resource(nullptr);
    set_mapped_resource(nullptr);
  }
};

TEST(CallbackResource, ServesEveryAllocationAndGetsEachBack) {
  restore_defaults guard;
  auto book = std::make_shared<ledger>();
  set_current_resource(counted(book));
  EXPECT_EQ(current_resource()->name(), "counted");
  {
    auto a = allocation::device(1000);
    auto b = allocation::device(64);
    EXPECT_EQ(book->allocs, 2u);
    EXPECT_EQ(book->live.at(a->data()), 1000u);
    std::vector<int> host(250, 7), back(250);
    mem::copy_sync(a->data(), host.data(), 1000, {});
    mem::copy_sync(back.data(), a->data(), 1000, {});
    EXPECT_EQ(back, host);
  }
  memory::synchronize();  // the deferred frees run
  EXPECT_EQ(book->frees, 2u);
  EXPECT_TRUE(book->live.empty());
  EXPECT_EQ(book->mismatched, 0u);
}

TEST(CallbackResource, NullAndMisalignedMemoryAreRefusedAndReturned) {
  std::size_t returned = 0;
  auto upstream = default_resource();
  void* block = upstream->allocate(4096);
  auto mr = std::make_shared<callback_memory_resource>(
      [&](std::size_t bytes, stream_view) -> void* {
        return bytes == 8 ? nullptr : static_cast<char*>(block) + 4;
      },
      [&](void*, std::size_t, stream_view) { ++returned; }, memory_kind::device, 0, "broken");
  try {
    mr->allocate(8);
    FAIL() << "a null pointer was accepted";
  } catch (const logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("broken: an allocation of 8 bytes returned a null pointer"),
              std::string::npos)
        << e.what();
  }
  try {
    mr->allocate(100);
    FAIL() << "a misaligned pointer was accepted";
  } catch (const logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("not 16-byte aligned"), std::string::npos) << e.what();
  }
  EXPECT_EQ(returned, 1u) << "the misaligned block goes straight back";
  upstream->deallocate(block, 4096);
}

TEST(CallbackResource, AllocateErrorsReachTheCallerAndFreeErrorsDoNot) {
  auto mr = std::make_shared<callback_memory_resource>(
      [](std::size_t, stream_view) -> void* { throw std::runtime_error("plugin out of memory"); },
      [](void*, std::size_t, stream_view) { throw std::runtime_error("plugin cannot free"); },
      memory_kind::device, 0, "failing");
  EXPECT_THROW(
      {
        try {
          mr->allocate(16);
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "plugin out of memory");
          throw;
        }
      },
      std::runtime_error);
  alignas(16) static char spot[16];
  EXPECT_NO_THROW(mr->deallocate(spot, 16));  // reported on stderr, never thrown
  EXPECT_THROW(callback_memory_resource({}, {}, memory_kind::device, 0, "empty"), logic_error);
}

TEST(HostResources, ReplaceableAndRestoredWithTheirKindChecked) {
  restore_defaults guard;
  auto original = pinned_resource();
  auto calls = std::make_shared<std::size_t>(0);
  auto upstream = std::make_shared<pinned_memory_resource>(false);
  // By value: the free runs at a later flush, after this test has returned
  // (AddressSanitizer caught the reference capture).
  auto mr = std::make_shared<callback_memory_resource>(
      [calls, upstream](std::size_t bytes, stream_view s) {
        ++*calls;
        return upstream->allocate(bytes, s);
      },
      [upstream](void* p, std::size_t bytes, stream_view s) { upstream->deallocate(p, bytes, s); },
      memory_kind::pinned, 0, "host plugin");
  set_pinned_resource(mr);
  { auto a = allocation::make(pinned_resource(), 128); EXPECT_NE(a->host_data(), nullptr); }
  EXPECT_EQ(*calls, 1u);
  EXPECT_THROW(set_mapped_resource(mr), logic_error) << "a pinned resource cannot serve mapped memory";
  set_pinned_resource(nullptr);
  EXPECT_EQ(pinned_resource()->name(), original->name());
}

TEST(DefaultResource, IsWhatThePluginReplacedAndStaysUsable) {
  restore_defaults guard;
  auto before = current_resource();
  auto book = std::make_shared<ledger>();
  set_current_resource(counted(book));
  EXPECT_EQ(default_resource(), before) << "the default outlives its replacement";
  auto a = allocation::make(default_resource(), 256);
  EXPECT_EQ(book->allocs, 0u);
  set_current_resource(nullptr);
  EXPECT_EQ(current_resource(), before);
}

TEST(LiveAllocations, CountedByKindUntilTheOwnerGoes) {
  const std::size_t device_before = allocation::live(memory_kind::device);
  const std::size_t pinned_before = allocation::live(memory_kind::pinned);
  {
    auto a = allocation::device(100);
    auto b = allocation::make(pinned_resource(), 100);
    auto adopted = allocation::adopt(a->data(), 10, memory_kind::device, 0, nullptr);
    EXPECT_EQ(allocation::live(memory_kind::device), device_before + 1) << "adopted memory is not counted";
    EXPECT_EQ(allocation::live(memory_kind::pinned), pinned_before + 1);
  }
  EXPECT_EQ(allocation::live(memory_kind::device), device_before);
  EXPECT_EQ(allocation::live(memory_kind::pinned), pinned_before);
}

// --- IPC: what one process can check --------------------------------------------

bool on_cpu() { return active_backend() == backend_kind::cpu; }

template <class F>
std::string cuda_error_text(F&& f) {
  try {
    f();
  } catch (const cuda_error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Ipc, ExportNamesTheWholeAllocationAndTheOffset) {
  // Plain device memory: a GPU's stream-ordered pool cannot be exported (PoolMemoryIsRefusedWithTheReason).
  auto a = allocation::make(std::make_shared<device_memory_resource>(), 10000);
  auto info = mem::ipc_export(static_cast<char*>(a->data()) + 512);
  EXPECT_EQ(info.offset, 512u);
  EXPECT_GE(info.bytes, 10000u);
  EXPECT_EQ(info.device, 0);
  EXPECT_EQ(info.handle.rfind(on_cpu() ? "cuforge-cpu-ipc/1 " : "cuforge-cuda-ipc/1 ", 0), 0u) << info.handle;
  EXPECT_EQ(mem::ipc_export(a->data()).handle, info.handle) << "one handle per allocation";
}

TEST(Ipc, PoolMemoryIsRefusedWithTheReason) {
  if (on_cpu()) GTEST_SKIP() << "the cpu backend shares any device memory";
  if (current_resource()->name() != "pool") GTEST_SKIP() << "the current resource is not the stream-ordered pool";
  auto a = allocation::device(10000);
  EXPECT_NE(cuda_error_text([&] { (void)mem::ipc_export(a->data()); }).find("stream-ordered pool"), std::string::npos);
}

TEST(Ipc, ExportedMemoryKeepsItsContentsAndStaysUsable) {
  if (!on_cpu()) GTEST_SKIP() << "the cpu backend moves exported pages into a shared file";
  for (std::size_t bytes : {std::size_t{40}, std::size_t{5000}, std::size_t{3} << 20}) {
    auto a = allocation::device(bytes);
    std::vector<unsigned char> host(bytes), back(bytes);
    for (std::size_t i = 0; i < bytes; ++i) host[i] = static_cast<unsigned char>(i * 7);
    mem::copy_sync(a->data(), host.data(), bytes, {});
    (void)mem::ipc_export(a->data());
    mem::copy_sync(back.data(), a->data(), bytes, {});
    EXPECT_EQ(back, host) << bytes << " bytes";
    std::memset(host.data(), 3, bytes);
    mem::copy_sync(a->data(), host.data(), bytes, {});
    mem::copy_sync(back.data(), a->data(), bytes, {});
    EXPECT_EQ(back, host);
  }
  memory::synchronize();
  auto again = allocation::device(40);  // freed shared blocks left the heap sound
  EXPECT_NE(again->data(), nullptr);
}

TEST(Ipc, HostMemoryIsNotShared) {
  auto p = allocation::make(pinned_resource(), 64);
  EXPECT_NE(cuda_error_text([&] { (void)mem::ipc_export(p->data()); }).find("only device memory"),
            std::string::npos);
  int local = 0;
  EXPECT_NE(cuda_error_text([&] { (void)mem::ipc_export(&local); }).find("only device memory"), std::string::npos);
}

TEST(Ipc, BadHandlesAreRefusedWithTheReason) {
  EXPECT_NE(cuda_error_text([] { (void)mem::ipc_open("garbage"); }).find("not an IPC handle"), std::string::npos);
  EXPECT_NE(cuda_error_text([] { (void)mem::ipc_open("cuforge-cpu-ipc/1 pid=1 fd=3"); }).find(
                on_cpu() ? "not an IPC handle" : "made on the cpu backend"),
            std::string::npos);
  if (on_cpu()) {
    EXPECT_NE(cuda_error_text([] { (void)mem::ipc_open("cuforge-cuda-ipc/1 00"); }).find("made on a GPU"),
              std::string::npos);
    auto a = allocation::device(64);
    auto info = mem::ipc_export(a->data());
    EXPECT_NE(cuda_error_text([&] { (void)mem::ipc_open(info.handle); }).find("made in this process"),
              std::string::npos);
    // A handle naming a process that does not exist (pid 2^22 + 1 is above the default pid_max).
    std::string forged = "cuforge-cpu-ipc/1 pid=4194305 fd=3 token=0000000000000001 bytes=256 span=4096";
    EXPECT_NE(cuda_error_text([&] { (void)mem::ipc_open(forged); }).find("is gone"), std::string::npos);
    int x = 0;
    EXPECT_NE(cuda_error_text([&] { mem::ipc_close(&x); }).find("not memory opened from an IPC handle"),
              std::string::npos);
  }
}

}  // namespace
