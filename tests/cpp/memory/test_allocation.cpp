// The shared allocation owner (make, device, adopt, register_host) and
// deferred deallocation: batching by count and bytes, flush(), defer_cleanup,
// flush_forced(), memory::synchronize, waiting for the device before a free,
// and never flushing from a callback thread.

#include <cuforge/memory/allocation.hpp>
#include <cuforge/memory/current_resource.hpp>
#include <cuforge/memory/deallocation.hpp>
#include <cuforge/memory/device_memory_resource.hpp>
#include <cuforge/memory/memory_resource.hpp>
#include <cuforge/memory/statistics_resource_adaptor.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/error.hpp>
#include <cuforge/runtime/launch.hpp>
#include <cuforge/runtime/memory_ops.hpp>

#include <cuda.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "test_support.hpp"

namespace {

using namespace cuforge;
using namespace cuforge::memory;
using namespace std::chrono_literals;
using cuforge::testing::gate;
using cuforge::testing::one_per_element;
using cuforge::testing::test_module;

constexpr std::size_t absurd = std::size_t{1} << 60;

/// Page-aligned pageable host memory, as users register it.
struct host_block {
  explicit host_block(std::size_t bytes) : bytes(bytes), p(static_cast<char*>(std::aligned_alloc(4096, bytes))) {}
  ~host_block() { std::free(p); }
  host_block(const host_block&) = delete;
  host_block& operator=(const host_block&) = delete;
  std::size_t bytes;
  char* p;
};

class Deferred : public ::testing::Test {
 protected:
  void SetUp() override {
    q_.flush_forced();
    ASSERT_EQ(q_.pending_count(), 0u);
    ASSERT_FALSE(q_.deferring());
    if (q_.max_pending_count() < 3) GTEST_SKIP() << "CUFORGE_DEALLOCS_COUNT is set below 3";
  }
  void TearDown() override { q_.flush_forced(); }

  std::shared_ptr<allocation> small() { return allocation::make(stats_, 256); }
  std::size_t live() const { return stats_->stats().current_count; }

  deallocation_queue& q_ = deallocation_queue::instance();
  std::shared_ptr<statistics_resource_adaptor> stats_ =
      std::make_shared<statistics_resource_adaptor>(std::make_shared<device_memory_resource>());
};

// ---------------------------------------------------------------------------
// allocation

TEST(Allocation, MakeChecksItsArguments) {
  EXPECT_THROW((void)allocation::make(nullptr, 16), logic_error);
}

TEST(Allocation, DeviceUsesTheCurrentResource) {
  auto a = allocation::device(4096);
  ASSERT_NE(a->data(), nullptr);
  EXPECT_EQ(a->resource(), current_resource());
  EXPECT_EQ(a->kind(), memory_kind::device);
  EXPECT_EQ(a->host_data(), nullptr);
  EXPECT_EQ(a->size(), 4096u);
  EXPECT_EQ(mem::kind_of(a->data()), memory_kind::device);
  EXPECT_TRUE(a->stream().is_legacy_default());
}

TEST(Allocation, OutOfMemoryFlushesPendingFreesThenReportsTheSize) {
  auto& q = deallocation_queue::instance();
  q.flush_forced();
  int released = 0;
  defer_cleanup hold;  // even inside defer_cleanup: waiting would only fail
  q.push([&] { ++released; }, 100, -1);
  ASSERT_EQ(q.pending_count(), 1u);
  try {
    (void)allocation::make(current_resource(), absurd);
    FAIL() << "allocating 2^60 bytes succeeded";
  } catch (const out_of_memory& e) {
    EXPECT_EQ(e.bytes(), absurd);
    EXPECT_NE(std::string(e.what()).find(std::to_string(absurd)), std::string::npos) << e.what();
  }
  EXPECT_EQ(released, 1) << "pending deallocations must be flushed before giving up";
  EXPECT_EQ(q.pending_count(), 0u);
  // The process keeps working.
  auto a = allocation::device(1 << 20);
  EXPECT_NE(a->data(), nullptr);
}

TEST(Allocation, AdoptRunsItsReleaseOnceThroughTheQueue) {
  auto& q = deallocation_queue::instance();
  q.flush_forced();
  if (q.max_pending_count() < 2) GTEST_SKIP() << "CUFORGE_DEALLOCS_COUNT is set below 2";
  int released = 0;
  static char storage[64];
  auto a = allocation::adopt(storage, sizeof storage, memory_kind::pageable, 0, [&] { ++released; }, storage);
  EXPECT_EQ(a->data(), storage);
  EXPECT_EQ(a->host_data(), storage);
  EXPECT_EQ(a->size(), sizeof storage);
  EXPECT_EQ(a->kind(), memory_kind::pageable);
  EXPECT_EQ(a->resource(), nullptr);
  auto b = a;
  a.reset();
  EXPECT_EQ(q.pending_count(), 0u) << "an owner is still alive";
  b.reset();
  EXPECT_EQ(released, 0) << "foreign memory may still be in use by queued work: it waits its turn";
  EXPECT_EQ(q.pending_count(), 1u);
  q.flush();
  EXPECT_EQ(released, 1);
  q.flush();
  EXPECT_EQ(released, 1);
}

TEST(Allocation, AdoptWithoutReleaseIsANonOwningView) {
  auto& q = deallocation_queue::instance();
  q.flush_forced();
  static char storage[64];
  {
    auto a = allocation::adopt(storage, sizeof storage, memory_kind::pageable, 0, {});
    EXPECT_EQ(a->data(), storage);
    EXPECT_EQ(a->host_data(), nullptr);
  }
  EXPECT_EQ(q.pending_count(), 0u);
}

TEST(Allocation, RegisterHostPageLocksInPlaceForTheOwnersLifetime) {
  host_block block(1 << 16);
  EXPECT_EQ(mem::kind_of(block.p), memory_kind::pageable);
  {
    auto a = allocation::register_host(block.p, block.bytes, false);
    EXPECT_EQ(a->kind(), memory_kind::registered);
    EXPECT_EQ(a->host_data(), block.p);
    EXPECT_EQ(a->data(), block.p);
    EXPECT_EQ(a->size(), block.bytes);
    EXPECT_EQ(mem::kind_of(block.p), memory_kind::registered);
    EXPECT_EQ(mem::kind_of(block.p + 100), memory_kind::registered);
    // The same range, or part of it, cannot be registered twice.
    CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
                              (void)allocation::register_host(block.p, block.bytes, false));
    CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
                              (void)allocation::register_host(block.p, block.bytes, true));
    EXPECT_EQ(mem::kind_of(block.p), memory_kind::registered) << "a failed registration must not undo the first";
  }
  // Released at once, not deferred: it can be registered again right away.
  EXPECT_EQ(mem::kind_of(block.p), memory_kind::pageable);
  for (int i = 0; i < 3; ++i) {
    auto again = allocation::register_host(block.p, block.bytes, false);
    EXPECT_EQ(mem::kind_of(block.p), memory_kind::registered);
  }
}

TEST(Allocation, RegisterHostMappedIsDeviceVisible) {
  host_block block(1 << 16);
  auto a = allocation::register_host(block.p, block.bytes, true);
  ASSERT_NE(a->data(), nullptr);
  EXPECT_EQ(a->host_data(), block.p);
  auto k = test_module().get_kernel("fill_int");
  int n = 1000;
  launch(k, one_per_element(1000), static_cast<int*>(a->data()), 31, n);
  cuforge::synchronize();
  const int* host = reinterpret_cast<const int*>(block.p);
  for (int i = 0; i < n; ++i) ASSERT_EQ(host[i], 31) << i;
}

TEST(Allocation, RegisterHostChecksItsArguments) {
  host_block block(4096);
  EXPECT_THROW((void)allocation::register_host(nullptr, 4096, false), logic_error);
  EXPECT_THROW((void)allocation::register_host(block.p, 0, false), logic_error);
}

// ---------------------------------------------------------------------------
// Deferred deallocation

TEST_F(Deferred, FreesWaitForTheCountThreshold) {
  const std::size_t max = q_.max_pending_count();
  std::vector<std::shared_ptr<allocation>> held;
  for (std::size_t i = 0; i < max; ++i) held.push_back(small());
  EXPECT_EQ(live(), max);
  for (std::size_t i = 0; i + 1 < max; ++i) held[i].reset();
  EXPECT_EQ(q_.pending_count(), max - 1);
  EXPECT_EQ(q_.pending_bytes(), (max - 1) * 256);
  EXPECT_EQ(live(), max) << "frees below the threshold must wait";
  held.back().reset();  // the threshold: the whole batch goes
  EXPECT_EQ(q_.pending_count(), 0u);
  EXPECT_EQ(q_.pending_bytes(), 0u);
  EXPECT_EQ(live(), 0u);
}

TEST_F(Deferred, FlushRunsPendingFrees) {
  small().reset();
  small().reset();
  EXPECT_EQ(q_.pending_count(), 2u);
  EXPECT_EQ(live(), 2u);
  q_.flush();
  EXPECT_EQ(q_.pending_count(), 0u);
  EXPECT_EQ(live(), 0u);
  q_.flush();  // nothing to do
  EXPECT_EQ(live(), 0u);
}

TEST_F(Deferred, ByteThresholdFlushesTheBatch) {
  int released = 0;
  q_.push([&] { ++released; }, 1, -1);
  EXPECT_EQ(released, 0);
  q_.push([&] { ++released; }, q_.max_pending_bytes(), -1);
  EXPECT_EQ(released, 2);
  EXPECT_EQ(q_.pending_count(), 0u);
}

TEST_F(Deferred, DeferCleanupHoldsFreesUntilForced) {
  const std::size_t max = q_.max_pending_count();
  {
    defer_cleanup outer;
    EXPECT_TRUE(q_.deferring());
    for (std::size_t i = 0; i < max + 3; ++i) small().reset();
    EXPECT_EQ(q_.pending_count(), max + 3) << "nothing is freed inside defer_cleanup, past the threshold too";
    EXPECT_EQ(live(), max + 3);
    q_.flush();
    EXPECT_EQ(live(), max + 3) << "flush() inside defer_cleanup does nothing";
    {
      defer_cleanup inner;
      small().reset();
    }
    EXPECT_TRUE(q_.deferring()) << "leaving an inner scope keeps the outer one deferring";
    EXPECT_EQ(live(), max + 4);
    q_.flush_forced();
    EXPECT_EQ(q_.pending_count(), 0u);
    EXPECT_EQ(live(), 0u);
    EXPECT_TRUE(q_.deferring());
  }
  EXPECT_FALSE(q_.deferring());
}

TEST_F(Deferred, LeavingDeferCleanupResumesFlushing) {
  const std::size_t max = q_.max_pending_count();
  {
    defer_cleanup hold;
    for (std::size_t i = 0; i < max + 1; ++i) small().reset();
    EXPECT_EQ(live(), max + 1);
  }
  EXPECT_EQ(q_.pending_count(), 0u) << "the queue was past its threshold when the scope ended";
  EXPECT_EQ(live(), 0u);
  {
    defer_cleanup hold;
    small().reset();
  }
  EXPECT_EQ(q_.pending_count(), 1u) << "below the threshold, frees keep waiting";
  EXPECT_EQ(live(), 1u);
}

TEST_F(Deferred, MemorySynchronizeFlushes) {
  small().reset();
  EXPECT_EQ(live(), 1u);
  memory::synchronize();
  EXPECT_EQ(live(), 0u);
  small().reset();
  memory::synchronize(0);
  EXPECT_EQ(live(), 0u);
}

TEST_F(Deferred, FlushWaitsForWorkQueuedBeforeTheFree) {
  stream s;
  gate g;
  auto a = allocation::make(stats_, 4096, s);
  auto k = test_module().get_kernel("fill_int");
  int n = 1024;
  s.add_callback(g.hold());
  launch(k, one_per_element(1024, s), static_cast<int*>(a->data()), 1, n);  // queued behind the gate
  ASSERT_TRUE(g.wait_reached());
  a.reset();
  auto flushed = std::async(std::launch::async, [&] { q_.flush_forced(); });
  EXPECT_EQ(flushed.wait_for(150ms), std::future_status::timeout)
      << "the free ran while the device still had work queued before it";
  EXPECT_EQ(live(), 1u);
  g.open();
  flushed.get();
  EXPECT_TRUE(s.is_idle());
  EXPECT_EQ(live(), 0u);
}

TEST_F(Deferred, NothingIsFlushedFromACallbackThread) {
  cuforge::testing::watchdog dog("flush from a callback");
  int released = 0;
  q_.push([&] { ++released; }, 16, 0);
  stream s;
  std::atomic<bool> on_callback{false};
  s.add_callback([&] {
    on_callback = on_callback_thread();
    q_.flush_forced();  // would wait for the device from inside it
  });
  s.synchronize();
  EXPECT_TRUE(on_callback.load());
  EXPECT_EQ(released, 0) << "a callback thread flushed the queue";
  EXPECT_EQ(q_.pending_count(), 1u);
  q_.flush();
  EXPECT_EQ(released, 1);
}

}  // namespace
