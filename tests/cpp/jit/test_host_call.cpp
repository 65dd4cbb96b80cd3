// Host code called on the host itself (jit/host_call.hpp), whatever the
// active backend: the CPU targets of vectorize and guvectorize run this way.
#include <cuforge/jit/compiled_kernel.hpp>
#include <cuforge/jit/compiler.hpp>
#include <cuforge/jit/error_record.hpp>
#include <cuforge/jit/host_call.hpp>
#include <cuforge/runtime/error.hpp>

#include "frontend/typer_support.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace {

using namespace cuforge;
using namespace cuforge::jit;
using frontend::compile_config;
using frontend::target_kind;

compile_config host_config() {
  compile_config c;
  c.target = target_kind::host;
  return c;
}

std::shared_ptr<compiled_kernel> compile(const char* src, const std::vector<std::string>& specs,
                                         compile_config cfg = host_config()) {
  typer_test::env e;
  std::vector<const frontend::type*> args;
  for (const auto& s : specs) args.push_back(parse_type(s));
  return compiled_kernel::compile(e.parse(src), args, nullptr, cfg, false);
}

// A loop over 1-d strided arrays, as vectorize generates them.
constexpr const char* loop_src =
    "def loop(a, b, out):\n"
    "    for i in range(out.shape[0]):\n"
    "        out[i] = a[i] * 2.0 + b[i]\n";

template <class T>
void put_array(std::vector<std::uint64_t>& slots, T* data, std::int64_t n, std::int64_t stride_bytes) {
  slots.push_back(reinterpret_cast<std::uintptr_t>(data));
  slots.push_back(static_cast<std::uint64_t>(n));
  slots.push_back(static_cast<std::uint64_t>(stride_bytes));
}

TEST(HostCall, RunsALoopOverHostMemoryWithAnyStrides) {
  auto k = compile(loop_src, {"array(float64, 1d, A)", "array(float64, 1d, A)", "array(float64, 1d, A)"});
  std::vector<double> a(20), b(10), out(10, -1);
  for (int i = 0; i < 20; ++i) a[i] = i;
  for (int i = 0; i < 10; ++i) b[i] = 100 + i;
  std::vector<std::uint64_t> slots;
  put_array(slots, a.data(), 10, 2 * sizeof(double));  // every other element
  double scalar = 0.5;
  put_array(slots, &scalar, 10, 0);                    // a broadcast operand: stride 0
  put_array(slots, out.data(), 10, sizeof(double));
  call_on_host(*k, slots);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(out[i], a[2 * i] * 2.0 + 0.5) << i;
  (void)b;
}

TEST(HostCall, RefusesWhatItCannotRun) {
  auto k = compile(loop_src, {"array(float64, 1d, A)", "array(float64, 1d, A)", "array(float64, 1d, A)"});
  std::vector<std::uint64_t> few(4, 0);
  EXPECT_THROW(call_on_host(*k, few), type_error);
  // GPU code is not host code.
  compile_config gpu;
  gpu.target = target_kind::nvptx;
  auto g = compile(loop_src, {"array(float64, 1d, A)", "array(float64, 1d, A)", "array(float64, 1d, A)"}, gpu);
  std::vector<std::uint64_t> slots(9, 0);
  EXPECT_THROW(call_on_host(*g, slots), logic_error);
  // A barrier has no block to wait for.
  auto b = compile("def k(a):\n    cuda.syncthreads()\n    a[0] = 1\n", {"array(int64, 1d, A)"});
  std::vector<std::uint64_t> one(3, 0);
  EXPECT_THROW(call_on_host(*b, one), logic_error);
}

TEST(HostCall, AFailedAssertBecomesAKernelException) {
  compile_config debug = host_config();
  debug.debug_level = 1;
  auto k = compile("def k(a):\n    for i in range(a.shape[0]):\n        assert a[i] < 3, 'too large'\n",
                   {"array(int64, 1d, A)"}, debug);
  std::vector<std::int64_t> v{1, 2, 5};
  std::vector<std::uint64_t> slots;
  put_array(slots, v.data(), 3, sizeof(std::int64_t));
  try {
    call_on_host(*k, slots);
    FAIL() << "the assert did not fire";
  } catch (const kernel_exception& e) {
    EXPECT_EQ(e.code(), frontend::kernel_error::assertion);
    EXPECT_EQ(e.message(), "too large");
  }
  v[2] = 0;
  EXPECT_NO_THROW(call_on_host(*k, slots));  // the record starts clean each call
}

TEST(HostParallelFor, RunsEveryIndexOnceAndRethrows) {
  EXPECT_GE(host_workers(), 1u);
  for (std::size_t n : {0u, 1u, 2u, 7u, 1000u}) {
    std::vector<std::atomic<int>> seen(n);
    host_parallel_for(n, [&](std::size_t i) { seen[i].fetch_add(1); });
    for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(seen[i].load(), 1) << i << " of " << n;
  }
  EXPECT_THROW(host_parallel_for(100, [](std::size_t i) {
                 if (i == 37) throw std::runtime_error("37");
               }),
               std::runtime_error);
  // Nested calls run serially instead of waiting for the pool they occupy.
  std::atomic<int> total{0};
  host_parallel_for(8, [&](std::size_t) { host_parallel_for(8, [&](std::size_t) { total.fetch_add(1); }); });
  EXPECT_EQ(total.load(), 64);
}

}  // namespace
