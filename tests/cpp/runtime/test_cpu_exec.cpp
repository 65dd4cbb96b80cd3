// The cpu backend's execution engine (cpu_exec::run), driven directly with
// kernels written against cpu_kernel.hpp: barriers, shared memory, loop
// mode, cooperative launches, errors and concurrency.

#include "cpu/exec.hpp"

#include <cuforge/runtime/cpu_kernel.hpp>
#include <cuforge/runtime/error.hpp>

#include <cuda.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cfenv>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

#include "test_support.hpp"
#include <vector>

namespace {

namespace cpu = cuforge::cpu;
namespace cpu_exec = cuforge::detail::cpu_exec;
using cuforge::dim3;

struct launch_options {
  dim3 grid;
  dim3 block;
  std::size_t dynamic_shared = 0;
  std::size_t static_shared = 0;
  bool uses_barrier = true;
  bool cooperative = false;
  cpu::kernel_fn block_fn = nullptr;
  bool block_runs = false;
};

template <class... Args>
void launch(cpu::kernel_fn fn, const launch_options& o, Args... args) {
  void* params[sizeof...(Args) + 1] = {static_cast<void*>(&args)...};
  cpu_exec::grid_launch l;
  l.fn = fn;
  l.grid = o.grid;
  l.block = o.block;
  l.static_shared_bytes = o.static_shared;
  l.dynamic_shared_bytes = o.dynamic_shared;
  l.params = params;
  l.uses_barrier = o.uses_barrier;
  l.cooperative = o.cooperative;
  l.block_fn = o.block_fn;
  l.block_runs = o.block_runs;
  cpu_exec::run(l);
}

// The tests below deadlock by design if barriers are broken: the shared
// watchdog fails the suite instead of letting it hang.
using cuforge::testing::watchdog;

unsigned long long global_x(const cpu::thread_context* ctx) {
  return static_cast<unsigned long long>(ctx->block_idx.x) * ctx->block_dim.x + ctx->thread_idx.x;
}

unsigned long long global_linear(const cpu::thread_context* ctx) {
  const auto& b = ctx->block_idx;
  const auto& g = ctx->grid_dim;
  unsigned long long block = b.x + static_cast<unsigned long long>(g.x) * (b.y + static_cast<unsigned long long>(g.y) * b.z);
  unsigned long long per_block = static_cast<unsigned long long>(ctx->block_dim.x) * ctx->block_dim.y * ctx->block_dim.z;
  return block * per_block + ctx->linear_thread_id();
}

// --- kernels ----------------------------------------------------------------

// out[block] = sum of the block's slice of `in`: a tree reduction in dynamic
// shared memory with a barrier between levels (any block size).
void block_reduce(cpu::thread_context* ctx, const int* in, long long* out, int n) {
  auto* partial = static_cast<long long*>(ctx->dynamic_shared());
  unsigned t = ctx->thread_idx.x;
  unsigned size = ctx->block_dim.x;
  unsigned long long i = global_x(ctx);
  partial[t] = i < static_cast<unsigned long long>(n) ? in[i] : 0;
  cpu::syncthreads(ctx);
  for (unsigned half = std::bit_ceil(size) / 2; half > 0; half /= 2) {
    if (t < half && t + half < size) partial[t] += partial[t + half];
    cpu::syncthreads(ctx);
  }
  if (t == 0) out[ctx->block_idx.x] = partial[0];
}

// Thread 0 spins on a flag that only the block's last thread raises, with a
// barrier inside the loop: it terminates only if the barrier really lets
// every other thread run before thread 0 goes round again.
void barrier_handshake(cpu::thread_context* ctx, int* rounds) {
  auto* flag = static_cast<volatile int*>(ctx->dynamic_shared());
  if (ctx->thread_idx.x == 0) flag[0] = 0;
  cpu::syncthreads(ctx);
  int seen = 0;
  while (flag[0] == 0) {
    ++seen;
    if (ctx->thread_idx.x == ctx->block_dim.x - 1 && seen == 3) flag[0] = 1;
    cpu::syncthreads(ctx);
  }
  rounds[global_x(ctx)] = seen;
}

// Odd threads return at once; even ones pass `steps` barriers, each time
// checking that every even thread has written the step before it.
void early_exit(cpu::thread_context* ctx, int steps, int* failures) {
  unsigned t = ctx->thread_idx.x;
  if (t % 2 == 1) return;
  auto* step = static_cast<int*>(ctx->dynamic_shared());
  for (int s = 1; s <= steps; ++s) {
    step[t] = s;
    cpu::syncthreads(ctx);
    for (unsigned u = 0; u < ctx->block_dim.x; u += 2) {
      if (step[u] != s) std::atomic_ref<int>(*failures).fetch_add(1);
    }
    cpu::syncthreads(ctx);
  }
}

// visits[global linear id] += 1, and the coordinates are checked against the
// launch shape.
void visit(cpu::thread_context* ctx, unsigned* visits, int* bad, int barriers) {
  const auto& t = ctx->thread_idx;
  const auto& b = ctx->block_idx;
  if (t.x >= ctx->block_dim.x || t.y >= ctx->block_dim.y || t.z >= ctx->block_dim.z ||
      b.x >= ctx->grid_dim.x || b.y >= ctx->grid_dim.y || b.z >= ctx->grid_dim.z || cpu::current() != ctx) {
    std::atomic_ref<int>(*bad).fetch_add(1);
  }
  for (int i = 0; i < barriers; ++i) {
    cpu::syncthreads(ctx);
    if (cpu::current() != ctx) std::atomic_ref<int>(*bad).fetch_add(1);
  }
  std::atomic_ref<unsigned>(visits[global_linear(ctx)]).fetch_add(1);
}

// Every thread checks its block's shared memory starts zeroed, stamps it with
// the block's id, keeps the block busy long enough for other workers to run
// blocks at the same time, and checks nobody else wrote into it.
std::atomic<int> blocks_started{0};

void shared_isolation(cpu::thread_context* ctx, int* bad, unsigned long long* runners) {
  auto* words = static_cast<unsigned*>(ctx->dynamic_shared());
  unsigned t = ctx->linear_thread_id();
  unsigned id = ctx->block_idx.x + 1;
  if (words[t] != 0) std::atomic_ref<int>(*bad).fetch_add(1);
  cpu::syncthreads(ctx);
  words[t] = id;
  if (t == 0) {
    runners[ctx->block_idx.x] = std::hash<std::thread::id>{}(std::this_thread::get_id());
    // Block 0 waits (bounded) until another block has started, so at least
    // two blocks are in flight at once wherever there are two workers.
    int mine = blocks_started.fetch_add(1) + 1;
    if (ctx->block_idx.x == 0 && cpu_exec::worker_count() > 1) {
      auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (blocks_started.load() == mine && std::chrono::steady_clock::now() < until) std::this_thread::yield();
    }
  }
  for (int round = 0; round < 4; ++round) {
    cpu::syncthreads(ctx);
    for (unsigned u = 0; u < ctx->block_dim.x; ++u) {
      if (words[u] != id) std::atomic_ref<int>(*bad).fetch_add(1);
    }
  }
}

// Fills the whole of shared memory (static and dynamic) with garbage.
void scribble_shared(cpu::thread_context* ctx, bool sync) {
  auto* bytes = static_cast<unsigned char*>(ctx->shared);
  std::size_t n = ((ctx->static_shared_bytes + 15) & ~std::size_t{15}) + ctx->dynamic_shared_bytes;
  for (std::size_t i = ctx->thread_idx.x; i < n; i += ctx->block_dim.x) bytes[i] = 0xA5;
  if (sync) cpu::syncthreads(ctx);
}

// Checks the layout, alignment and zeroing of shared memory.
void check_shared(cpu::thread_context* ctx, bool sync, int* bad) {
  auto* bytes = static_cast<unsigned char*>(ctx->shared);
  auto* dynamic = static_cast<unsigned char*>(ctx->dynamic_shared());
  std::size_t static_end = (ctx->static_shared_bytes + 15) & ~std::size_t{15};
  std::size_t n = static_end + ctx->dynamic_shared_bytes;
  if (reinterpret_cast<std::uintptr_t>(bytes) % 64 != 0) std::atomic_ref<int>(*bad).fetch_add(1);
  if (dynamic != bytes + static_end) std::atomic_ref<int>(*bad).fetch_add(1);
  for (std::size_t i = ctx->thread_idx.x; i < n; i += ctx->block_dim.x) {
    if (bytes[i] != 0) std::atomic_ref<int>(*bad).fetch_add(1);
  }
  if (sync) cpu::syncthreads(ctx);
}

void count_bins(cpu::thread_context* ctx, unsigned* bins, unsigned nbins) {
  std::atomic_ref<unsigned>(bins[global_x(ctx) % nbins]).fetch_add(1, std::memory_order_relaxed);
}

// Thread `thrower` of block `block` throws; in fiber mode the others wait at
// a barrier, which the thrower's exit must release.
void throw_in_one(cpu::thread_context* ctx, unsigned block, unsigned thrower, bool sync, int* after) {
  if (ctx->block_idx.x == block && ctx->thread_idx.x == thrower) throw std::runtime_error("boom from a kernel");
  if (sync) cpu::syncthreads(ctx);
  std::atomic_ref<int>(*after).fetch_add(1);
}

void throw_non_std(cpu::thread_context*, void**) { throw 42; }

void sync_once(cpu::thread_context* ctx, int* after) {
  cpu::syncthreads(ctx);
  std::atomic_ref<int>(*after).fetch_add(1);
}

void grid_sync_once(cpu::thread_context* ctx, int* after) {
  cpu::grid_sync(ctx);
  std::atomic_ref<int>(*after).fetch_add(1);
}

// Cooperative: each round, every thread writes its slot, the grid syncs, and
// every thread reads a slot written by another block.
void grid_exchange(cpu::thread_context* ctx, int* data, int* seen, int rounds) {
  unsigned long long n = static_cast<unsigned long long>(ctx->grid_dim.x) * ctx->block_dim.x;
  unsigned long long i = global_x(ctx);
  unsigned long long other = (i + ctx->block_dim.x + 1) % n;  // in another block
  auto* mine = static_cast<int*>(ctx->dynamic_shared());
  for (int r = 0; r < rounds; ++r) {
    int stamp = r * 100000 + static_cast<int>(ctx->block_idx.x);  // per block: shared memory is too
    data[i] = static_cast<int>(i) * 10 + r;
    mine[ctx->thread_idx.x] = stamp;
    cpu::syncthreads(ctx);
    cpu::grid_sync(ctx);
    if (data[other] != static_cast<int>(other) * 10 + r) seen[i] = -1;
    if (mine[(ctx->thread_idx.x + 1) % ctx->block_dim.x] != stamp) seen[i] = -2;
    cpu::grid_sync(ctx);  // nobody overwrites data[] before all have read it
  }
  if (seen[i] == 0) seen[i] = rounds;
}

// Thread 0 of each block waits at __syncthreads while the others wait at the
// grid barrier: neither barrier can complete.
void mismatched_barriers(cpu::thread_context* ctx) {
  if (ctx->thread_idx.x == 0) {
    cpu::syncthreads(ctx);
  } else {
    cpu::grid_sync(ctx);
  }
}

// Lanes 0-15 shuffle twice among themselves while lanes 16-31 vote once, so
// that both meetings are open together; then the halves swap with a full
// mask. `out`: each thread's final value; `votes`: its vote's answer.
void warp_halves(cpu::thread_context* ctx, std::uint64_t* out, std::uint64_t* votes) {
  const unsigned t = ctx->linear_thread_id();
  const unsigned lane = t % 32;
  const unsigned long long g = global_linear(ctx);
  std::uint64_t v = 1000 + t;
  if (lane < 16) {
    v = cuforge_cpu_warp_shuffle(ctx, 0x0000FFFFu, v, static_cast<std::int32_t>(lane ^ 1));
    v += cuforge_cpu_warp_shuffle(ctx, 0x0000FFFFu, v, static_cast<std::int32_t>(lane + 1));
  } else {
    votes[g] = cuforge_cpu_warp_vote(ctx, 0xFFFF0000u, lane % 3 == 0);
  }
  out[g] = cuforge_cpu_warp_shuffle(ctx, 0xFFFFFFFFu, v, static_cast<std::int32_t>(lane ^ 16));
}

// Lanes 4-7 return while lanes 0-3 meet with 0xFF; every lane of the block
// then matches with a full mask.
void warp_exits(cpu::thread_context* ctx, std::uint64_t* votes, std::uint32_t* matches) {
  const unsigned t = ctx->linear_thread_id();
  const unsigned lane = t % 32;
  if (lane >= 4 && lane < 8) return;
  if (lane < 4) {
    cuforge_cpu_syncwarp(ctx, 0xFFu);
    votes[t] = cuforge_cpu_warp_vote(ctx, 0xFFu, 1);
  }
  matches[t] = cuforge_cpu_warp_match(ctx, 0xFFFFFFFFu, lane / 8);
}

// Lane 0 meets with 0x3, lane 1 with 0x7: each waits for the other.
void warp_mismatch(cpu::thread_context* ctx) {
  const unsigned lane = ctx->linear_thread_id() % 32;
  if (lane == 0) cuforge_cpu_syncwarp(ctx, 0x3u);
  if (lane == 1) cuforge_cpu_syncwarp(ctx, 0x7u);
}

void nested_launch(cpu::thread_context*, void**) {
  cpu_exec::grid_launch inner;
  inner.fn = &throw_non_std;
  cpu_exec::run(inner);
}

// Recursion using about `depth` KiB of stack, checked on the way back.
int recurse(int depth) {
  volatile char frame[1000];
  for (int i = 0; i < 1000; i += 97) frame[i] = static_cast<char>(depth + i);
  int below = depth > 0 ? recurse(depth - 1) : 0;
  int sum = 0;
  for (int i = 0; i < 1000; i += 97) sum += frame[i] == static_cast<char>(depth + i) ? 1 : 0;
  return below + (sum == 11 ? 1 : 0);
}

void deep_stack(cpu::thread_context* ctx, int depth, int* ok) {
  int got = recurse(depth);
  cpu::syncthreads(ctx);
  if (got == depth + 1) std::atomic_ref<int>(*ok).fetch_add(1);
}

void stack_overflow(cpu::thread_context* ctx) {
  cpu::syncthreads(ctx);
  recurse(1 << 20);
}

// Uses cpu::current() only, as portable kernels do.
void via_current(unsigned* visits) {
  cpu::thread_context* ctx = cpu::current();
  cpu::syncthreads(ctx);
  std::atomic_ref<unsigned>(visits[global_x(ctx)]).fetch_add(1);
}

// Thread 0 switches to rounding downwards, then waits at a barrier while the
// others run: they must still round to nearest (SSE arithmetic and the x87
// control word both), and thread 0 must find its own mode again when it
// resumes. It never switches back: the threads that run on its fiber later
// must not inherit its mode either. `near` and `down` are 1/3 rounded
// either way.
float one_third() {
  volatile float one = 1.0f;
  volatile float three = 3.0f;
  return one / three;
}

void rounding_modes(cpu::thread_context* ctx, float near, float down, int* bad) {
  bool first = ctx->thread_idx.x == 0;
  if (std::fegetround() != FE_TONEAREST || one_third() != near) std::atomic_ref<int>(*bad).fetch_add(1);
  if (first) std::fesetround(FE_DOWNWARD);
  cpu::syncthreads(ctx);
  if (std::fegetround() != (first ? FE_DOWNWARD : FE_TONEAREST)) std::atomic_ref<int>(*bad).fetch_add(1);
  if (one_third() != (first ? down : near)) std::atomic_ref<int>(*bad).fetch_add(1);
  cpu::syncthreads(ctx);
}

// Values live across a barrier stay in callee-saved registers (d8-d15 and
// x19-x28 on AArch64; rbx, rbp, r12-r15 on x86-64), which the switch must
// keep per fiber.
void registers_survive(cpu::thread_context* ctx, int* bad) {
  double t = ctx->thread_idx.x + 1.0;
  double d0 = t * 1.5, d1 = t * 2.5, d2 = t * 3.5, d3 = t * 4.5;
  double d4 = t * 5.5, d5 = t * 6.5, d6 = t * 7.5, d7 = t * 8.5;
  unsigned long long u = ctx->thread_idx.x;
  unsigned long long i0 = u * 3, i1 = u * 5, i2 = u * 7, i3 = u * 11, i4 = u * 13, i5 = u * 17;
  for (int round = 0; round < 3; ++round) {
    cpu::syncthreads(ctx);
    double sum = d0 + d1 * 2 + d2 * 3 + d3 * 4 + d4 * 5 + d5 * 6 + d6 * 7 + d7 * 8;
    unsigned long long isum = i0 + i1 * 2 + i2 * 3 + i3 * 4 + i4 * 5 + i5 * 6;
    if (sum != t * (1.5 + 5.0 + 10.5 + 18.0 + 27.5 + 39.0 + 52.5 + 68.0) || isum != u * (3 + 10 + 21 + 44 + 65 + 102)) {
      std::atomic_ref<int>(*bad).fetch_add(1);
    }
    d0 += 1; d1 += 1; d2 += 1; d3 += 1; d4 += 1; d5 += 1; d6 += 1; d7 += 1;
    d0 -= 1; d1 -= 1; d2 -= 1; d3 -= 1; d4 -= 1; d5 -= 1; d6 -= 1; d7 -= 1;
  }
}

// --- tests ------------------------------------------------------------------

TEST(CpuExec, BlockReductionMatchesHostSum) {
  const int n = 100000;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 7919) % 1000 - 300;
  for (unsigned size : {1u, 2u, 7u, 64u, 100u, 256u, 1024u}) {
    SCOPED_TRACE("block size " + std::to_string(size));
    unsigned blocks = (n + size - 1) / size;
    std::vector<long long> out(blocks, -1);
    launch(cpu::entry<&block_reduce>, {blocks, size, size * sizeof(long long)}, static_cast<const int*>(in.data()),
           out.data(), n);
    for (unsigned b = 0; b < blocks; ++b) {
      long long want = 0;
      for (unsigned i = b * size; i < std::min<unsigned>((b + 1) * size, n); ++i) want += in[i];
      ASSERT_EQ(out[b], want) << "block " << b;
    }
    EXPECT_EQ(std::accumulate(out.begin(), out.end(), 0LL), std::accumulate(in.begin(), in.end(), 0LL));
  }
}

TEST(CpuExec, BarrierHoldsEveryThread) {
  for (unsigned size : {2u, 33u, 1024u}) {
    SCOPED_TRACE("block size " + std::to_string(size));
    const unsigned blocks = 16;
    std::vector<int> rounds(blocks * size, -1);
    {
      watchdog guard("barrier_handshake");
      launch(cpu::entry<&barrier_handshake>, {blocks, size, sizeof(int)}, rounds.data());
    }
    for (unsigned i = 0; i < rounds.size(); ++i) ASSERT_EQ(rounds[i], 3) << "thread " << i;
  }
}

TEST(CpuExec, ReturnedThreadsCountAsArrived) {
  for (unsigned size : {2u, 3u, 64u, 1023u}) {
    SCOPED_TRACE("block size " + std::to_string(size));
    int failures = 0;
    {
      watchdog guard("early_exit");
      launch(cpu::entry<&early_exit>, {8, size, size * sizeof(int)}, 5, &failures);
    }
    EXPECT_EQ(failures, 0);
  }
}

TEST(CpuExec, VisitsEveryCoordinateOnce3D) {
  const dim3 grid(3, 4, 5);
  const dim3 block(4, 3, 2);
  const unsigned long long total = grid.count() * block.count();
  for (int barriers : {0, 2}) {
    for (bool uses_barrier : {true, false}) {
      if (barriers != 0 && !uses_barrier) continue;
      SCOPED_TRACE("barriers " + std::to_string(barriers) + ", uses_barrier " + std::to_string(uses_barrier));
      std::vector<unsigned> visits(total, 0);
      int bad = 0;
      launch_options o{grid, block};
      o.uses_barrier = uses_barrier;
      launch(cpu::entry<&visit>, o, visits.data(), &bad, barriers);
      EXPECT_EQ(bad, 0);
      for (unsigned long long i = 0; i < total; ++i) ASSERT_EQ(visits[i], 1u) << "thread " << i;
    }
  }
}

TEST(CpuExec, CurrentFollowsTheRunningFiber) {
  EXPECT_EQ(cpu::current(), nullptr);
  std::vector<unsigned> visits(64 * 128, 0);
  launch(cpu::entry<&via_current>, {64, 128}, visits.data());
  for (unsigned v : visits) ASSERT_EQ(v, 1u);
  EXPECT_EQ(cpu::current(), nullptr);
}

TEST(CpuExec, CalleeSavedRegistersArePerFiber) {
  int bad = 0;
  launch(cpu::entry<&registers_survive>, {3, 64}, &bad);
  EXPECT_EQ(bad, 0);
}

TEST(CpuExec, FloatingPointControlIsPerFiber) {
  float near = one_third();
  std::fesetround(FE_DOWNWARD);
  float down = one_third();
  std::fesetround(FE_TONEAREST);
  ASSERT_NE(near, down);
  int bad = 0;
  for (int again = 0; again < 2; ++again) launch(cpu::entry<&rounding_modes>, {4, 8}, near, down, &bad);
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(std::fegetround(), FE_TONEAREST);
}

TEST(CpuExec, SharedMemoryIsPerBlockAndZeroed) {
  const unsigned blocks = 64;
  const unsigned size = 128;
  int bad = 0;
  std::vector<unsigned long long> runners(blocks, 0);
  blocks_started = 0;
  {
    watchdog guard("shared_isolation");
    launch(cpu::entry<&shared_isolation>, {blocks, size, size * sizeof(unsigned)}, &bad, runners.data());
  }
  EXPECT_EQ(bad, 0);
  std::set<unsigned long long> distinct(runners.begin(), runners.end());
  if (cpu_exec::worker_count() > 1) {
    EXPECT_GE(distinct.size(), 2u) << "blocks should have run on more than one worker";
  }
}

TEST(CpuExec, SharedMemoryLayoutAlignmentAndZeroing) {
  for (bool uses_barrier : {true, false}) {
    SCOPED_TRACE("uses_barrier " + std::to_string(uses_barrier));
    launch_options o{40, 32, 200, 20};
    o.uses_barrier = uses_barrier;
    launch(&cpu::entry<&scribble_shared>, o, uses_barrier);
    int bad = 0;
    launch(cpu::entry<&check_shared>, o, uses_barrier, &bad);
    EXPECT_EQ(bad, 0);
  }
  // Only dynamic shared memory, and none at all.
  int bad = 0;
  launch(cpu::entry<&check_shared>, {3, 16, 100}, true, &bad);
  launch(cpu::entry<&check_shared>, {3, 16}, true, &bad);
  EXPECT_EQ(bad, 0);
}

TEST(CpuExec, AtomicsAcrossBlocksAreExact) {
  const unsigned nbins = 17;
  for (bool uses_barrier : {false, true}) {
    std::vector<unsigned> bins(nbins, 0);
    launch_options o{4096, 256};
    o.uses_barrier = uses_barrier;
    launch(cpu::entry<&count_bins>, o, bins.data(), nbins);
    const unsigned long long total = 4096ULL * 256;
    for (unsigned b = 0; b < nbins; ++b) {
      EXPECT_EQ(bins[b], total / nbins + (b < total % nbins ? 1 : 0)) << "bin " << b;
    }
  }
}

TEST(CpuExec, KernelExceptionBecomesLaunchFailed) {
  for (bool uses_barrier : {true, false}) {
    SCOPED_TRACE("uses_barrier " + std::to_string(uses_barrier));
    int after = 0;
    launch_options o{8, 16};
    o.uses_barrier = uses_barrier;
    watchdog guard("throw_in_one");
    try {
      launch(cpu::entry<&throw_in_one>, o, 2u, 5u, uses_barrier, &after);
      ADD_FAILURE() << "run() should have thrown";
    } catch (const cuforge::cuda_error& e) {
      EXPECT_EQ(e.status(), CUDA_ERROR_LAUNCH_FAILED);
      EXPECT_EQ(e.call(), "kernel launch");
      EXPECT_NE(e.message().find("boom from a kernel"), std::string::npos) << e.message();
      EXPECT_NE(e.message().find("(block (2,0,0), thread (5,0,0))"), std::string::npos) << e.message();
    }
    // Every other thread still ran to completion.
    EXPECT_EQ(after, 8 * 16 - 1);
  }
  try {
    launch(&throw_non_std, {2, 2});
    ADD_FAILURE() << "run() should have thrown";
  } catch (const cuforge::cuda_error& e) {
    EXPECT_EQ(e.status(), CUDA_ERROR_LAUNCH_FAILED);
    EXPECT_NE(e.message().find("unknown exception"), std::string::npos) << e.message();
  }
  // The engine keeps working.
  std::vector<unsigned> visits(100 * 64, 0);
  int bad = 0;
  launch(cpu::entry<&visit>, {100, 64}, visits.data(), &bad, 1);
  EXPECT_EQ(bad, 0);
  for (unsigned v : visits) ASSERT_EQ(v, 1u);
}

TEST(CpuExec, LoopModeRejectsBarriers) {
  int after = 0;
  for (unsigned size : {8u, 1u}) {
    SCOPED_TRACE("block size " + std::to_string(size));
    launch_options o{4, size};
    o.uses_barrier = false;
    try {
      launch(cpu::entry<&sync_once>, o, &after);
      ADD_FAILURE() << "run() should have thrown";
    } catch (const cuforge::cuda_error& e) {
      EXPECT_EQ(e.status(), CUDA_ERROR_LAUNCH_FAILED);
      EXPECT_NE(e.message().find("declared without barriers"), std::string::npos) << e.message();
    }
  }
  // A barrier among one thread needs no fiber and is a no-op.
  after = 0;
  launch(cpu::entry<&sync_once>, {50, 1}, &after);
  EXPECT_EQ(after, 50);
}

TEST(CpuExec, CooperativeGridSync) {
  const unsigned blocks = 12;
  const unsigned size = 64;
  std::vector<int> data(blocks * size, 0);
  std::vector<int> seen(blocks * size, 0);
  launch_options o{blocks, size, size * sizeof(int)};
  o.cooperative = true;
  {
    watchdog guard("grid_exchange");
    launch(cpu::entry<&grid_exchange>, o, data.data(), seen.data(), 5);
  }
  for (unsigned i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], 5) << "thread " << i;

  // The largest grid allowed.
  unsigned long long most = cpu_exec::max_cooperative_threads();
  ASSERT_GE(most, 1024u);
  std::vector<int> big_data(most, 0);
  std::vector<int> big_seen(most, 0);
  launch_options big{static_cast<unsigned>(most / 32), 32, 32 * sizeof(int)};
  big.cooperative = true;
  {
    watchdog guard("grid_exchange (largest)");
    launch(cpu::entry<&grid_exchange>, big, big_data.data(), big_seen.data(), 2);
  }
  for (unsigned long long i = 0; i < most; ++i) ASSERT_EQ(big_seen[i], 2) << "thread " << i;
}

TEST(CpuExec, CooperativeTooLargeIsRefused) {
  unsigned long long most = cpu_exec::max_cooperative_threads();
  int after = 0;
  launch_options o{static_cast<unsigned>(most / 64 + 1), 64};
  o.cooperative = true;
  try {
    launch(cpu::entry<&grid_sync_once>, o, &after);
    ADD_FAILURE() << "run() should have thrown";
  } catch (const cuforge::cuda_error& e) {
    EXPECT_EQ(e.status(), CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
  }
  EXPECT_EQ(after, 0);
}

TEST(CpuExec, GridSyncOutsideCooperativeLaunchFails) {
  for (unsigned size : {1u, 32u}) {
    for (bool uses_barrier : {true, false}) {
      SCOPED_TRACE("block " + std::to_string(size) + ", uses_barrier " + std::to_string(uses_barrier));
      int after = 0;
      launch_options o{4, size};
      o.uses_barrier = uses_barrier;
      watchdog guard("grid_sync_once");
      try {
        launch(cpu::entry<&grid_sync_once>, o, &after);
        ADD_FAILURE() << "run() should have thrown";
      } catch (const cuforge::cuda_error& e) {
        EXPECT_EQ(e.status(), CUDA_ERROR_LAUNCH_FAILED);
        EXPECT_NE(e.message().find("cooperative"), std::string::npos) << e.message();
      }
    }
  }
}

TEST(CpuExec, MismatchedBarriersReportDeadlock) {
  launch_options o{3, 8};
  o.cooperative = true;
  watchdog guard("mismatched_barriers");
  try {
    launch(&cpu::entry<&mismatched_barriers>, o);
    ADD_FAILURE() << "run() should have thrown";
  } catch (const cuforge::cuda_error& e) {
    EXPECT_EQ(e.status(), CUDA_ERROR_LAUNCH_FAILED);
    EXPECT_NE(e.message().find("deadlock"), std::string::npos) << e.message();
  }
}

// What warp_halves gives, worked out lane by lane for block size `size`.
void expect_warp_halves(unsigned blocks, unsigned size, const std::vector<std::uint64_t>& out,
                        const std::vector<std::uint64_t>& votes) {
  for (unsigned b = 0; b < blocks; ++b) {
    for (unsigned base = 0; base < size; base += 32) {
      const unsigned first = b * size + base;
      const unsigned lanes = std::min(32u, size - base);
      std::uint64_t v[32];
      std::uint32_t ballot = 0, voters = 0;
      for (unsigned l = 0; l < lanes; ++l) v[l] = 1000 + base + l;  // thread ids are per block
      std::uint64_t swapped[16];
      for (unsigned l = 0; l < 16 && l < lanes; ++l) swapped[l] = (l ^ 1) < lanes ? v[l ^ 1] : v[l];
      for (unsigned l = 0; l < 16 && l < lanes; ++l)
        v[l] = swapped[l] + (l + 1 < 16 && l + 1 < lanes ? swapped[l + 1] : swapped[l]);
      for (unsigned l = 16; l < lanes; ++l) {
        voters |= 1u << l;
        if (l % 3 == 0) ballot |= 1u << l;
      }
      for (unsigned l = 0; l < lanes; ++l) {
        const std::uint64_t want = (l ^ 16) < lanes ? v[l ^ 16] : v[l];
        ASSERT_EQ(out[first + l], want) << "block " << b << ", thread " << base + l;
        if (l >= 16) {
          ASSERT_EQ(votes[first + l], (std::uint64_t{voters} << 32) | ballot) << "block " << b << ", thread " << base + l;
        }
      }
    }
  }
}

TEST(CpuExec, WarpMeetingsFollowTheirMasks) {
  for (unsigned size : {32u, 64u, 50u, 20u}) {
    for (bool cooperative : {false, true}) {
      SCOPED_TRACE("block size " + std::to_string(size) + (cooperative ? ", cooperative" : ""));
      const unsigned blocks = 3;
      std::vector<std::uint64_t> out(blocks * size, 0), votes(blocks * size, 0);
      launch_options o{blocks, size};
      o.cooperative = cooperative;
      {
        watchdog guard("warp_halves");
        launch(cpu::entry<&warp_halves>, o, out.data(), votes.data());
      }
      expect_warp_halves(blocks, size, out, votes);
    }
  }
}

TEST(CpuExec, ExitedLanesCountAsArrivedAtWarpMeetings) {
  const unsigned size = 40;
  std::vector<std::uint64_t> votes(size, 0);
  std::vector<std::uint32_t> matches(size, 0);
  {
    watchdog guard("warp_exits");
    launch(cpu::entry<&warp_exits>, {1, size}, votes.data(), matches.data());
  }
  for (unsigned t = 0; t < size; ++t) {
    const unsigned lane = t % 32;
    if (lane >= 4 && lane < 8) continue;
    // Lanes 4-7 of each warp have returned; the second warp has 8 lanes.
    const unsigned lanes = t < 32 ? 32 : 8;
    std::uint32_t same = 0;
    for (unsigned l = 0; l < lanes; ++l)
      if ((l < 4 || l >= 8) && l / 8 == lane / 8) same |= 1u << l;
    EXPECT_EQ(matches[t], same) << "thread " << t;
    if (lane < 4) {
      EXPECT_EQ(votes[t], (std::uint64_t{0xF} << 32) | 0xF) << "thread " << t;
    }
  }
}

TEST(CpuExec, MismatchedWarpMasksReportDeadlock) {
  watchdog guard("warp_mismatch");
  try {
    launch(&cpu::entry<&warp_mismatch>, {2, 32});
    ADD_FAILURE() << "run() should have thrown";
  } catch (const cuforge::cuda_error& e) {
    EXPECT_EQ(e.status(), CUDA_ERROR_LAUNCH_FAILED);
    EXPECT_NE(e.message().find("member mask"), std::string::npos) << e.message();
  }
}

TEST(CpuExec, ConcurrentRunsFromSeveralThreads) {
  const int host_threads = 4;
  const int launches = 25;
  std::vector<int> failures(host_threads, 0);
  watchdog guard("concurrent runs");
  std::vector<std::thread> threads;
  for (int h = 0; h < host_threads; ++h) {
    threads.emplace_back([h, &failures] {
      const int n = 20000 + 1000 * h;
      std::vector<int> in(n);
      for (int i = 0; i < n; ++i) in[i] = (i + h) % 13;
      long long want = std::accumulate(in.begin(), in.end(), 0LL);
      for (int k = 0; k < launches; ++k) {
        unsigned size = 32u << (k % 4);
        unsigned blocks = (n + size - 1) / size;
        std::vector<long long> out(blocks, 0);
        launch(cpu::entry<&block_reduce>, {blocks, size, size * sizeof(long long)}, static_cast<const int*>(in.data()),
               out.data(), n);
        if (std::accumulate(out.begin(), out.end(), 0LL) != want) ++failures[h];
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int h = 0; h < host_threads; ++h) EXPECT_EQ(failures[h], 0) << "host thread " << h;
}

TEST(CpuExec, DeepRecursionFitsTheStack) {
  // ~64 KiB of frames in each of 256 fibers suspended at once.
  int ok = 0;
  launch(cpu::entry<&deep_stack>, {4, 256}, 64, &ok);
  EXPECT_EQ(ok, 4 * 256);
}

TEST(CpuExec, StackOverflowHitsTheGuardPageAndFailsTheLaunch) {
  // The guard page below a fiber's stack faults; the fault handler turns that into the launch's
  // error, and the engine goes on.
#if defined(__SANITIZE_ADDRESS__)
  // The handler leaves the faulting fiber's stack for the launching thread's: AddressSanitizer
  // loses track of which stack it is on and reports its own bookkeeping (google/sanitizers#189).
  GTEST_SKIP() << "a fault handler jumping between stacks is beyond AddressSanitizer";
#endif
  for (int round = 0; round < 2; ++round) {
    try {
      launch(cpu::entry<&stack_overflow>, {1, 2});
      ADD_FAILURE() << "the overflow went unnoticed";
    } catch (const cuforge::cuda_error& e) {
      EXPECT_EQ(e.status(), CUDA_ERROR_LAUNCH_FAILED);
      EXPECT_NE(e.message().find("overflowed its thread's stack"), std::string::npos) << e.message();
    }
  }
  int ok = 0;
  launch(cpu::entry<&deep_stack>, {4, 256}, 64, &ok);
  EXPECT_EQ(ok, 4 * 256);
}

TEST(CpuExec, InvalidConfigurationsAreRejected) {
  auto status_of = [](const cpu_exec::grid_launch& l) {
    try {
      cpu_exec::run(l);
    } catch (const cuforge::cuda_error& e) {
      return e.status();
    }
    return 0;
  };
  cpu_exec::grid_launch l;
  l.fn = &throw_non_std;
  l.grid = dim3(0, 1, 1);
  EXPECT_EQ(status_of(l), CUDA_ERROR_INVALID_VALUE);
  l.grid = dim3(1, 1, 1);
  l.block = dim3(4, 0, 1);
  EXPECT_EQ(status_of(l), CUDA_ERROR_INVALID_VALUE);
  l.block = dim3(1, 1, 1);
  l.fn = nullptr;
  EXPECT_EQ(status_of(l), CUDA_ERROR_INVALID_VALUE);
  // Launching from inside a kernel is refused and reported, not a hang.
  l.fn = &nested_launch;
  EXPECT_EQ(status_of(l), CUDA_ERROR_LAUNCH_FAILED);
}

}  // namespace

namespace {

// A block entry (cpu_kernel_symbol::block_fn) as compiled kernels have them: every thread of ctx's
// block in one call. Counts its calls per block and its threads' visits; throws in block 3.
std::atomic<int> block_entry_calls{0};
void count_block(cpu::thread_context* ctx, void** params) {
  auto* visits = *static_cast<unsigned**>(params[0]);
  block_entry_calls.fetch_add(1, std::memory_order_relaxed);
  const unsigned block = ctx->block_idx.x + ctx->grid_dim.x * ctx->block_idx.y;
  for (unsigned t = 0; t < ctx->block_dim.x * ctx->block_dim.y * ctx->block_dim.z; ++t)
    ++visits[block * ctx->block_dim.x * ctx->block_dim.y * ctx->block_dim.z + t];
  if (*static_cast<bool*>(params[1]) && block == 3) throw std::runtime_error("boom from a block");
}

void never_per_thread(cpu::thread_context*, void**) { throw std::runtime_error("called per thread"); }

// A block entry that takes rows of blocks (cpu_kernel_symbol::block_runs): counts each block of its
// row once, records the longest row it was given, and names each block in ctx as it goes, as the
// compiler's do; throws in block (37, 1).
std::atomic<unsigned> longest_run{0};
void count_row(cpu::thread_context* ctx, void** params) {
  auto* visits = *static_cast<unsigned**>(params[0]);
  const unsigned first = ctx->block_idx.x, run = ctx->block_run;
  if (run == 0 || first + run > ctx->grid_dim.x) throw std::runtime_error("a row past the grid's");
  unsigned seen = longest_run.load();
  while (run > seen && !longest_run.compare_exchange_weak(seen, run)) {
  }
  for (unsigned bx = first; bx < first + run; ++bx) {
    ctx->block_idx.x = bx;
    ++visits[bx + ctx->grid_dim.x * (ctx->block_idx.y + ctx->grid_dim.y * ctx->block_idx.z)];
    if (*static_cast<bool*>(params[1]) && bx == 37 && ctx->block_idx.y == 1) throw std::runtime_error("boom in a row");
  }
}

}  // namespace

TEST(CpuExec, BlockEntriesThatTakeRowsGetEachBlockOnceAndNoRowWithSharedMemory) {
  launch_options o{{300, 3, 2}, {16, 16}};
  o.uses_barrier = false;
  o.block_fn = &count_row;
  o.block_runs = true;
  std::vector<unsigned> visits(300 * 3 * 2, 0);
  longest_run = 0;
  launch(&never_per_thread, o, visits.data(), false);
  for (unsigned v : visits) ASSERT_EQ(v, 1u);
  EXPECT_GT(longest_run.load(), 1u);  // claims of several blocks became rows
  try {
    launch(&never_per_thread, o, visits.data(), true);
    ADD_FAILURE() << "run() should have thrown";
  } catch (const cuforge::cuda_error& e) {
    EXPECT_NE(e.message().find("boom in a row (block (37,1,"), std::string::npos) << e.message();
  }
  // With shared memory (static or dynamic) each block gets its own call, with zeroed memory.
  for (int kind = 0; kind < 2; ++kind) {
    launch_options s = o;
    (kind == 0 ? s.static_shared : s.dynamic_shared) = 64;
    std::fill(visits.begin(), visits.end(), 0u);
    longest_run = 0;
    launch(&never_per_thread, s, visits.data(), false);
    for (unsigned v : visits) ASSERT_EQ(v, 1u);
    EXPECT_EQ(longest_run.load(), 1u);
  }
  // An entry that does not say it takes rows gets one block a call.
  launch_options one = o;
  one.block_runs = false;
  std::fill(visits.begin(), visits.end(), 0u);
  longest_run = 0;
  launch(&never_per_thread, one, visits.data(), false);
  for (unsigned v : visits) ASSERT_EQ(v, 1u);
  EXPECT_EQ(longest_run.load(), 1u);
}

TEST(CpuExec, BlockEntriesRunOncePerBlockAndNameTheBlockOfAnError) {
  launch_options o{{5, 4, 1}, {8, 2, 2}};
  o.uses_barrier = false;
  o.block_fn = &count_block;
  std::vector<unsigned> visits(20 * 32, 0);
  block_entry_calls = 0;
  launch(&never_per_thread, o, visits.data(), false);
  EXPECT_EQ(block_entry_calls.load(), 20);
  for (unsigned v : visits) ASSERT_EQ(v, 1u);
  try {
    launch(&never_per_thread, o, visits.data(), true);
    ADD_FAILURE() << "run() should have thrown";
  } catch (const cuforge::cuda_error& e) {
    EXPECT_EQ(e.status(), CUDA_ERROR_LAUNCH_FAILED);
    EXPECT_NE(e.message().find("boom from a block (block (3,0,0), one of its threads: they ran as one loop)"),
              std::string::npos) << e.message();
  }
  // A cooperative launch has no use for it: its threads are fibers, each called on its own.
  launch_options c{2, 4};
  c.cooperative = true;
  c.block_fn = &never_per_thread;
  std::vector<unsigned> v2(8, 0);
  int bad = 0;
  launch(cpu::entry<&visit>, c, v2.data(), &bad, 1);
  EXPECT_EQ(bad, 0);
  for (unsigned v : v2) ASSERT_EQ(v, 1u);
}
