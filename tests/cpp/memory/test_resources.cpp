// Memory resources: one typed suite run for every resource (device, pool,
// pinned, mapped, managed, and the statistics adaptor over device memory),
// then the statistics adaptor's counters and the current-resource registry.

#include <cuforge/memory/allocation.hpp>
#include <cuforge/memory/current_resource.hpp>
#include <cuforge/memory/deallocation.hpp>
#include <cuforge/memory/device_memory_resource.hpp>
#include <cuforge/memory/managed_memory_resource.hpp>
#include <cuforge/memory/memory_resource.hpp>
#include <cuforge/memory/pinned_memory_resource.hpp>
#include <cuforge/memory/pool_memory_resource.hpp>
#include <cuforge/memory/statistics_resource_adaptor.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/error.hpp>
#include <cuforge/runtime/launch.hpp>
#include <cuforge/runtime/memory_ops.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "test_support.hpp"

namespace {

using namespace cuforge;
using namespace cuforge::memory;
using cuforge::testing::one_per_element;
using cuforge::testing::test_module;

constexpr std::size_t absurd = std::size_t{1} << 60;

struct device_kind {
  static std::shared_ptr<memory_resource> make() { return std::make_shared<device_memory_resource>(); }
  static constexpr memory_kind kind = memory_kind::device;
  static constexpr const char* name = "device";
  static constexpr bool kernel_access = true;
};
struct pool_kind {
  static std::shared_ptr<memory_resource> make() { return std::make_shared<pool_memory_resource>(); }
  static constexpr memory_kind kind = memory_kind::device;
  static constexpr const char* name = "pool";
  static constexpr bool kernel_access = true;
};
struct pinned_kind {
  static std::shared_ptr<memory_resource> make() { return std::make_shared<pinned_memory_resource>(false); }
  static constexpr memory_kind kind = memory_kind::pinned;
  static constexpr const char* name = "pinned";
  static constexpr bool kernel_access = false;  // only through a mapping
};
struct mapped_kind {
  static std::shared_ptr<memory_resource> make() { return std::make_shared<pinned_memory_resource>(true); }
  static constexpr memory_kind kind = memory_kind::mapped;
  static constexpr const char* name = "mapped";
  static constexpr bool kernel_access = true;  // through mem::device_pointer_of_mapped
};
struct managed_kind {
  static std::shared_ptr<memory_resource> make() { return std::make_shared<managed_memory_resource>(); }
  static constexpr memory_kind kind = memory_kind::managed;
  static constexpr const char* name = "managed";
  static constexpr bool kernel_access = true;
};
struct statistics_kind {
  static std::shared_ptr<memory_resource> make() {
    return std::make_shared<statistics_resource_adaptor>(std::make_shared<device_memory_resource>());
  }
  static constexpr memory_kind kind = memory_kind::device;
  static constexpr const char* name = "statistics(device)";
  static constexpr bool kernel_access = true;
};

template <class K>
class Resource : public ::testing::Test {
 protected:
  std::shared_ptr<memory_resource> mr_ = K::make();
  // The address kernels use for p.
  static void* kernel_pointer(void* p) {
    return K::kind == memory_kind::mapped ? mem::device_pointer_of_mapped(p) : p;
  }
};

using resource_kinds = ::testing::Types<device_kind, pool_kind, pinned_kind, mapped_kind, managed_kind, statistics_kind>;
class resource_names {
 public:
  template <class K>
  static std::string GetName(int) {
    std::string n = K::name;
    std::replace_if(n.begin(), n.end(), [](char c) { return c == '(' || c == ')'; }, '_');
    return n;
  }
};
TYPED_TEST_SUITE(Resource, resource_kinds, resource_names);

TYPED_TEST(Resource, Identity) {
  auto& mr = *this->mr_;
  EXPECT_EQ(mr.name(), TypeParam::name);
  EXPECT_EQ(mr.kind(), TypeParam::kind);
  EXPECT_EQ(mr.device(), 0);
  EXPECT_TRUE(mr.is_equal(mr));
  auto other = TypeParam::make();
  EXPECT_FALSE(mr.is_equal(*other));
}

TYPED_TEST(Resource, AllocatesAlignedMemoryThatHoldsData) {
  auto& mr = *this->mr_;
  stream s;
  const std::size_t n = 1000;
  void* p = mr.allocate(n * sizeof(int), s);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 256, 0u) << "allocations are 256-byte aligned";
  EXPECT_EQ(mem::kind_of(p), TypeParam::kind);
  std::vector<int> in(n), out(n, -1);
  std::iota(in.begin(), in.end(), 17);
  mem::copy_sync(p, in.data(), n * sizeof(int), s);
  mem::copy_sync(out.data(), p, n * sizeof(int), s);
  EXPECT_EQ(out, in);
  if (TypeParam::kernel_access) {
    auto k = test_module().get_kernel("fill_int");
    int count = static_cast<int>(n);
    launch(k, one_per_element(n, s), static_cast<int*>(this->kernel_pointer(p)), 23, count);
    mem::copy_sync(out.data(), p, n * sizeof(int), s);
    EXPECT_EQ(out, std::vector<int>(n, 23));
  }
  s.synchronize();
  mr.deallocate(p, n * sizeof(int), s);
  s.synchronize();
}

TYPED_TEST(Resource, ManyAllocationsDoNotOverlap) {
  auto& mr = *this->mr_;
  std::vector<std::pair<char*, std::size_t>> blocks;
  for (std::size_t i = 1; i <= 40; ++i) {
    std::size_t bytes = i * 97 + (i % 3) * 4096;
    blocks.emplace_back(static_cast<char*>(mr.allocate(bytes)), bytes);
    ASSERT_NE(blocks.back().first, nullptr);
  }
  auto sorted = blocks;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 1; i < sorted.size(); ++i)
    EXPECT_LE(sorted[i - 1].first + sorted[i - 1].second, sorted[i].first) << "blocks " << i - 1 << " and " << i;
  for (auto [p, bytes] : blocks) mr.deallocate(p, bytes);
  cuforge::synchronize();
}

TYPED_TEST(Resource, ZeroBytesGiveNull) {
  auto& mr = *this->mr_;
  EXPECT_EQ(mr.allocate(0), nullptr);
  mr.deallocate(nullptr, 0);  // must be harmless
  mr.deallocate(nullptr, 100);
}

TYPED_TEST(Resource, AbsurdSizeIsOutOfMemoryAndTheProcessKeepsWorking) {
  auto& mr = *this->mr_;
  try {
    (void)mr.allocate(absurd);
    FAIL() << "allocating 2^60 bytes succeeded";
  } catch (const out_of_memory& e) {
    EXPECT_EQ(e.bytes(), absurd);
    EXPECT_NE(std::string(e.what()).find(std::to_string(absurd)), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)mr.allocate(absurd), std::bad_alloc) << "out_of_memory is a std::bad_alloc";
  void* p = mr.allocate(4096);
  ASSERT_NE(p, nullptr);
  std::vector<char> in(4096, 'x'), out(4096);
  mem::copy_sync(p, in.data(), in.size(), {});
  mem::copy_sync(out.data(), p, out.size(), {});
  EXPECT_EQ(out, in);
  mr.deallocate(p, 4096);
  cuforge::synchronize();
}

TYPED_TEST(Resource, OwnedThroughAnAllocation) {
  deallocation_queue::instance().flush_forced();
  stream s;
  auto a = allocation::make(this->mr_, 512, s);
  ASSERT_NE(a->data(), nullptr);
  EXPECT_EQ(a->size(), 512u);
  EXPECT_EQ(a->kind(), TypeParam::kind);
  EXPECT_EQ(a->device(), 0);
  EXPECT_EQ(a->resource(), this->mr_);
  EXPECT_EQ(a->stream(), s.view());
  EXPECT_EQ(a->generation(), context_generation());
  switch (TypeParam::kind) {
    case memory_kind::device:
      EXPECT_EQ(a->host_data(), nullptr);
      break;
    case memory_kind::mapped:
      EXPECT_EQ(a->data(), mem::device_pointer_of_mapped(a->host_data()));
      EXPECT_EQ(mem::kind_of(a->host_data()), memory_kind::mapped);
      break;
    default:  // pinned, managed: one address for both sides
      EXPECT_EQ(a->host_data(), a->data());
  }
  auto empty = allocation::make(this->mr_, 0, s);
  EXPECT_EQ(empty->data(), nullptr);
  EXPECT_EQ(empty->host_data(), nullptr);
  EXPECT_EQ(empty->size(), 0u);
  s.synchronize();
}

// ---------------------------------------------------------------------------
// The statistics adaptor

TEST(StatisticsAdaptor, CountsGoUpAndComeBackDown) {
  auto stats = std::make_shared<statistics_resource_adaptor>(std::make_shared<device_memory_resource>());
  EXPECT_EQ(stats->upstream()->name(), "device");
  void* a = stats->allocate(1000);
  void* b = stats->allocate(3000);
  auto c = stats->stats();
  EXPECT_EQ(c.current_bytes, 4000u);
  EXPECT_EQ(c.current_count, 2u);
  EXPECT_EQ(c.peak_bytes, 4000u);
  EXPECT_EQ(c.total_count, 2u);
  stats->deallocate(b, 3000);
  void* d = stats->allocate(500);
  c = stats->stats();
  EXPECT_EQ(c.current_bytes, 1500u);
  EXPECT_EQ(c.current_count, 2u);
  EXPECT_EQ(c.peak_bytes, 4000u);
  EXPECT_EQ(c.peak_count, 2u);
  EXPECT_EQ(c.total_bytes, 4500u);
  EXPECT_EQ(c.total_count, 3u);
  stats->deallocate(a, 1000);
  stats->deallocate(d, 500);
  c = stats->stats();
  EXPECT_EQ(c.current_bytes, 0u);
  EXPECT_EQ(c.current_count, 0u);
  // Nothing counted for what never reached the upstream.
  EXPECT_EQ(stats->allocate(0), nullptr);
  EXPECT_THROW((void)stats->allocate(absurd), out_of_memory);
  c = stats->stats();
  EXPECT_EQ(c.total_count, 3u);
  EXPECT_EQ(c.current_count, 0u);
  EXPECT_THROW(statistics_resource_adaptor(nullptr), logic_error);
}

TEST(StatisticsAdaptor, AllocationsReturnAfterTheDeferredQueueFlushes) {
  auto& q = deallocation_queue::instance();
  q.flush_forced();
  if (q.max_pending_count() < 3) GTEST_SKIP() << "CUFORGE_DEALLOCS_COUNT is set below 3";
  auto stats = std::make_shared<statistics_resource_adaptor>(std::make_shared<pool_memory_resource>());
  {
    auto a = allocation::make(stats, 1 << 16);
    auto b = allocation::make(stats, 1 << 10);
    EXPECT_EQ(stats->stats().current_count, 2u);
    EXPECT_EQ(stats->stats().current_bytes, (1u << 16) + (1u << 10));
  }
  // Freed in a batch later, not at once.
  EXPECT_EQ(q.pending_count(), 2u);
  EXPECT_EQ(q.pending_bytes(), (1u << 16) + (1u << 10));
  EXPECT_EQ(stats->stats().current_count, 2u);
  q.flush();
  EXPECT_EQ(q.pending_count(), 0u);
  EXPECT_EQ(q.pending_bytes(), 0u);
  EXPECT_EQ(stats->stats().current_count, 0u);
  EXPECT_EQ(stats->stats().current_bytes, 0u);
  EXPECT_EQ(stats->stats().total_count, 2u);
}

// ---------------------------------------------------------------------------
// The current resource

// Restores the default resource of device 0 however the test ends.
struct restore_default_resource {
  ~restore_default_resource() { set_current_resource(nullptr); }
};

TEST(CurrentResource, DefaultIsThePoolWherePoolsAreSupported) {
  auto mr = current_resource();
  ASSERT_NE(mr, nullptr);
  EXPECT_EQ(current_resource(), mr) << "the same resource until it is replaced";
  EXPECT_EQ(current_resource(0), mr);
  EXPECT_EQ(mr->kind(), memory_kind::device);
  EXPECT_EQ(mr->device(), 0);
  const char* env = std::getenv("CUFORGE_MEMORY_RESOURCE");
  std::string want = env && *env ? env : (mem::pools_supported(0) ? "pool" : "device");
  EXPECT_EQ(mr->name(), want);
}

TEST(CurrentResource, ReplacedAndRestored) {
  restore_default_resource guard;
  auto original = current_resource();
  auto stats = std::make_shared<statistics_resource_adaptor>(std::make_shared<device_memory_resource>());
  set_current_resource(stats);
  EXPECT_EQ(current_resource(), stats);
  {
    auto a = allocation::device(1234);
    EXPECT_EQ(a->resource(), stats);
    EXPECT_EQ(stats->stats().current_count, 1u);
    EXPECT_EQ(stats->stats().current_bytes, 1234u);
  }
  memory::synchronize();
  EXPECT_EQ(stats->stats().current_count, 0u);
  set_current_resource(nullptr);
  auto restored = current_resource();
  ASSERT_NE(restored, nullptr);
  EXPECT_NE(restored, stats);
  EXPECT_EQ(restored->name(), original->name());
  auto a = allocation::device(64);
  EXPECT_EQ(a->resource(), restored);
}

TEST(CurrentResource, ResourcesForDevicesThatDoNotExistAreRejected) {
  int n = device::count();
  EXPECT_THROW(device_memory_resource{n}, logic_error);
  EXPECT_THROW(pool_memory_resource{n}, logic_error);
  EXPECT_THROW(managed_memory_resource{n}, logic_error);
  EXPECT_THROW((void)current_resource(n), logic_error);
  EXPECT_THROW(set_current_resource(nullptr, n), logic_error);
}


TEST(CurrentResource, SharedHostResources) {
  EXPECT_EQ(pinned_resource(), pinned_resource());
  EXPECT_EQ(mapped_resource(), mapped_resource());
  EXPECT_EQ(managed_resource(), managed_resource());
  EXPECT_EQ(managed_resource(), managed_resource(0));
  EXPECT_EQ(pinned_resource()->kind(), memory_kind::pinned);
  EXPECT_EQ(mapped_resource()->kind(), memory_kind::mapped);
  EXPECT_EQ(managed_resource()->kind(), memory_kind::managed);
  EXPECT_NE(pinned_resource(), mapped_resource());
}

TEST(PoolResource, TrimKeepsItUsable) {
  pool_memory_resource pool;
  void* p = pool.allocate(1 << 20);
  pool.deallocate(p, 1 << 20);
  cuforge::synchronize();
  EXPECT_NO_THROW(pool.trim());
  EXPECT_NO_THROW(pool.trim(1 << 20));
  void* q = pool.allocate(1 << 20);
  EXPECT_NE(q, nullptr);
  pool.deallocate(q, 1 << 20);
  cuforge::synchronize();
}

// ---------------------------------------------------------------------------
// Several devices (see MultiDevice.OnTwoCpuDevices)

TEST(MultiDevice, OnTwoCpuDevices) {
  CUFORGE_REQUIRE_CPU("there, the MultiDevice tests run directly on machines with several GPUs");
  if (device::count() >= 2) GTEST_SKIP() << "already running with several devices";
  EXPECT_EQ(cuforge::testing::rerun_self("MultiDevice.*:-MultiDevice.OnTwoCpuDevices", "CUFORGE_CPU_DEVICES", "2"), 0)
      << "a MultiDevice test failed on two cpu devices (its output is above)";
}

TEST(MultiDevice, EachDeviceHasItsOwnResources) {
  CUFORGE_REQUIRE_DEVICES(2);
  auto r0 = current_resource(0), r1 = current_resource(1);
  EXPECT_NE(r0, r1);
  EXPECT_EQ(r0->device(), 0);
  EXPECT_EQ(r1->device(), 1);
  EXPECT_NE(managed_resource(0), managed_resource(1));
  EXPECT_EQ(managed_resource(1)->device(), 1);
  device::get(1).make_current();
  EXPECT_EQ(current_resource(), r1);
  auto a = allocation::device(100);
  EXPECT_EQ(a->device(), 1);
  EXPECT_EQ(a->resource(), r1);
  device::get(0).make_current();
  stream s1(stream::options{}, 1);
  auto b = allocation::device(100, s1);
  EXPECT_EQ(b->device(), 1) << "allocation::device allocates on its stream's device";
  EXPECT_EQ(b->resource(), r1);
  auto c = allocation::device(100);
  EXPECT_EQ(c->device(), 0);
}

TEST(MultiDevice, DeviceResourceServesOnlyItsDevice) {
  CUFORGE_REQUIRE_DEVICES(2);
  struct restore {
    ~restore() {
      set_current_resource(nullptr, 0);
      set_current_resource(nullptr, 1);
    }
  } guard;
  EXPECT_THROW(set_current_resource(std::make_shared<device_memory_resource>(1), 0), logic_error);
  auto stats = std::make_shared<statistics_resource_adaptor>(std::make_shared<device_memory_resource>(1));
  set_current_resource(stats, 1);
  EXPECT_EQ(current_resource(1), stats);
  EXPECT_NE(current_resource(0), stats);
  stream s1(stream::options{}, 1);
  {
    auto a = allocation::device(64, s1);
    EXPECT_EQ(stats->stats().current_count, 1u);
    EXPECT_EQ(a->device(), 1);
  }
  s1.synchronize();
  memory::synchronize(1);
  EXPECT_EQ(stats->stats().current_count, 0u);
}

TEST(MultiDevice, ResourcesOfTheSecondDeviceWork) {
  CUFORGE_REQUIRE_DEVICES(2);
  auto k = module::load(cuforge::testing::test_kernels_image(), 1).get_kernel("fill_int");
  stream s1(stream::options{}, 1);
  std::shared_ptr<memory_resource> resources[] = {std::make_shared<device_memory_resource>(1),
                                                  std::make_shared<pool_memory_resource>(1),
                                                  std::make_shared<managed_memory_resource>(1)};
  for (auto& mr : resources) {
    SCOPED_TRACE(mr->name());
    EXPECT_EQ(mr->device(), 1);
    const int n = 300;
    auto* p = static_cast<int*>(mr->allocate(n * sizeof(int), s1));
    ASSERT_NE(p, nullptr);
    int count = n;
    launch(k, one_per_element(n, s1), p, 77, count);
    std::vector<int> out(n);
    mem::copy_sync(out.data(), p, n * sizeof(int), s1);
    EXPECT_EQ(out, std::vector<int>(n, 77));
    mr->deallocate(p, n * sizeof(int), s1);
    s1.synchronize();
  }
}

}  // namespace
