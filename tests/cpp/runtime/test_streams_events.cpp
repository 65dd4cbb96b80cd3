// Streams and events on the active backend: creation and flags, in-order
// and really asynchronous execution, the default streams' ordering rules,
// host callbacks, cross-stream waits and timing.
//
// Ordering tests are built to be deterministic: a stream is held still by a
// host callback waiting on a gate (testing::gate) while the test looks at
// what has, and has not, run yet, through mapped host memory that the host
// can read without a stream-ordered copy.

#include <cuforge/runtime/backend.hpp>
#include <cuforge/runtime/device.hpp>
#include <cuforge/runtime/error.hpp>
#include <cuforge/runtime/event.hpp>
#include <cuforge/runtime/launch.hpp>
#include <cuforge/runtime/memory_ops.hpp>
#include <cuforge/runtime/module.hpp>
#include <cuforge/runtime/stream.hpp>

#include <cuda.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <functional>
#include <initializer_list>
#include <vector>

#include "test_support.hpp"

namespace {

using namespace cuforge;
using namespace std::chrono_literals;
using cuforge::testing::device_buffer;
using cuforge::testing::eventually;
using cuforge::testing::gate;
using cuforge::testing::mapped_buffer;
using cuforge::testing::one_per_element;
using cuforge::testing::slow_repeat;
using cuforge::testing::test_module;

constexpr int N = 1024;  // elements of the ordering tests (slow_repeat is calibrated for it)

class Streams : public ::testing::Test {
 protected:
  module mod_ = test_module();
  kernel fill_ = mod_.get_kernel("fill_int");
  kernel slow_ = mod_.get_kernel("slow_increment");

  void fill(int* x, int value, stream_view s, int n = N) { launch(fill_, one_per_element(n, s), x, value, n); }
  void slow(int* x, int repeat, stream_view s, int n = N) { launch(slow_, one_per_element(n, s), x, n, repeat); }
};

// ---------------------------------------------------------------------------
// Creation, flags and handles

TEST_F(Streams, PrioritiesAreClampedToTheDeviceRange) {
  auto [least, greatest] = stream::priority_range();
  EXPECT_LE(greatest, least) << "the greatest priority is the numerically smallest";
  EXPECT_EQ(stream::priority_range(0), stream::priority_range());
  EXPECT_EQ(stream(stream::options{.priority = least}).view().priority(), least);
  EXPECT_EQ(stream(stream::options{.priority = greatest}).view().priority(), greatest);
  EXPECT_EQ(stream(stream::options{.priority = greatest - 100}).view().priority(), greatest);
  EXPECT_EQ(stream(stream::options{.priority = least + 100}).view().priority(), least);
  if (greatest < least) {
    int mid = greatest + (least - greatest) / 2;
    EXPECT_EQ(stream(stream::options{.priority = mid}).view().priority(), mid);
  }
  EXPECT_EQ(stream_view{}.priority(), 0);
}

TEST_F(Streams, NonBlockingFlag) {
  stream blocking;
  stream non_blocking(stream::options{.non_blocking = true});
  EXPECT_FALSE(blocking.view().is_non_blocking());
  EXPECT_TRUE(non_blocking.view().is_non_blocking());
  EXPECT_FALSE(stream_view::legacy_default().is_non_blocking());
  EXPECT_FALSE(stream_view::per_thread_default().is_non_blocking());
}

TEST_F(Streams, HandlesViewsAndMoves) {
  stream a, b;
  EXPECT_NE(a.handle(), b.handle());
  for (auto h : {a.handle(), b.handle()}) {
    EXPECT_NE(h, 0u);
    EXPECT_NE(h, stream_view::legacy_handle);
    EXPECT_NE(h, stream_view::per_thread_handle);
  }
  EXPECT_EQ(a.view().device(), 0);
  EXPECT_FALSE(a.view().is_default());
  EXPECT_EQ(a.generation(), context_generation());
  stream_view v = a;
  EXPECT_EQ(v, a.view());

  stream_view legacy;
  EXPECT_TRUE(legacy.is_legacy_default());
  EXPECT_EQ(legacy.handle(), stream_view::legacy_handle);
  EXPECT_EQ(legacy.device(), 0);
  EXPECT_TRUE(stream_view::per_thread_default().is_per_thread_default());
  EXPECT_EQ(stream_view::per_thread_default(0).device(), 0);

  auto h = a.handle();
  stream c(std::move(a));
  EXPECT_EQ(c.handle(), h);
  EXPECT_TRUE(a.view().is_legacy_default()) << "a moved-from stream names the legacy default stream";
  b = std::move(c);
  EXPECT_EQ(b.handle(), h);
  EXPECT_TRUE(c.view().is_legacy_default());
  EXPECT_TRUE(b.is_idle());
}

TEST_F(Streams, FromHandle) {
  stream s;
  EXPECT_EQ(stream_view::from_handle(s.handle()), s.view());
  EXPECT_EQ(stream_view::from_handle(s.handle(), 0), s.view());
  EXPECT_TRUE(stream_view::from_handle(0).is_legacy_default());
  EXPECT_TRUE(stream_view::from_handle(stream_view::legacy_handle).is_legacy_default());
  EXPECT_TRUE(stream_view::from_handle(stream_view::per_thread_handle).is_per_thread_default());
  if (device::count() == 1)
    CUFORGE_EXPECT_THROW_WITH(logic_error, "belongs to device 0", (void)stream_view::from_handle(s.handle(), 3));
}

TEST_F(Streams, FromHandleRejectsABogusHandle) {
  CUFORGE_REQUIRE_CPU("the driver cannot validate a CUstream: a bogus one is undefined behaviour there");
  CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_INVALID_HANDLE, (void)stream_view::from_handle(0xdeadbeef0));
  std::uintptr_t dead = 0;
  stream_view dead_view;
  {
    stream s;
    dead = s.handle();
    dead_view = s.view();
  }
  CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_INVALID_HANDLE, (void)stream_view::from_handle(dead));
  // A view that outlived its stream is refused too, rather than touched.
  CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_INVALID_HANDLE, dead_view.synchronize());
  CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_INVALID_HANDLE, (void)dead_view.is_idle());
  CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_INVALID_HANDLE, fill(nullptr, 0, dead_view, 0));
}

TEST_F(Streams, QueryAndSynchronizeOnAnIdleStream) {
  stream s;
  EXPECT_TRUE(s.is_idle());
  EXPECT_NO_THROW(s.synchronize());
  EXPECT_NO_THROW(stream_view{}.synchronize());
  EXPECT_NO_THROW(stream_view::per_thread_default().synchronize());
}

// ---------------------------------------------------------------------------
// Execution order and asynchrony

TEST_F(Streams, WorkOnOneStreamRunsInOrder) {
  stream s;
  device_buffer<int> x(N);
  mem::fill(x.get(), 0, 4, N, s);
  slow(x.get(), slow_repeat(), s);  // still running when the fill is queued
  fill(x.get(), 7, s);              // must wait for it, or the increments land on 7
  slow(x.get(), 1, s);
  EXPECT_EQ(x.download(s), std::vector<int>(N, 8));
}

TEST_F(Streams, WorkIsReallyAsynchronous) {
  stream s;
  device_buffer<int> x(N);
  mem::fill(x.get(), 0, 4, N, s);
  s.synchronize();
  int repeat = slow_repeat();
  auto t0 = std::chrono::steady_clock::now();
  slow(x.get(), repeat, s);
  auto queued = std::chrono::steady_clock::now() - t0;
  EXPECT_FALSE(s.is_idle()) << "the slow kernel cannot have finished already";
  s.synchronize();
  auto done = std::chrono::steady_clock::now() - t0;
  EXPECT_TRUE(s.is_idle());
  EXPECT_LT(queued * 4, done) << "queuing must take a fraction of running";
  EXPECT_EQ(x.download(s), std::vector<int>(N, repeat));
}

TEST_F(Streams, QueuedWorkWaitsBehindAHeldStream) {
  stream s;
  mapped_buffer<int> x(N);
  gate g;
  s.add_callback(g.hold());
  fill(x.device(), 3, s);
  ASSERT_TRUE(g.wait_reached());
  std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(s.is_idle());
  EXPECT_TRUE(x.all(0)) << "the kernel ran before the work queued ahead of it";
  g.open();
  s.synchronize();
  EXPECT_TRUE(s.is_idle());
  EXPECT_TRUE(x.all(3));
}

TEST_F(Streams, DestroyingAStreamLetsItsQueuedWorkFinish) {
  mapped_buffer<int> x(N);
  gate g;
  {
    stream s;
    s.add_callback(g.hold());
    fill(x.device(), 6, s);
  }
  EXPECT_TRUE(x.all(0));
  g.open();
  synchronize();
  EXPECT_TRUE(eventually([&] { return x.all(6); }, 5000ms)) << "work queued before the stream was destroyed was lost";
}

// ---------------------------------------------------------------------------
// The default streams' rules

TEST_F(Streams, LegacyDefaultStreamWaitsForBlockingStreams) {
  stream blocking;
  device_buffer<int> x(N);
  mem::fill(x.get(), 0, 4, N, blocking);
  slow(x.get(), slow_repeat(), blocking);
  // Queued on the legacy stream while the slow kernel runs: it must wait,
  // or the increments would land on top of the 5.
  fill(x.get(), 5, stream_view::legacy_default());
  stream_view::legacy_default().synchronize();
  EXPECT_TRUE(blocking.is_idle()) << "the legacy stream finished before the blocking stream's earlier work";
  EXPECT_EQ(x.download(stream_view::legacy_default()), std::vector<int>(N, 5));
}

TEST_F(Streams, BlockingStreamsWaitForTheLegacyDefaultStream) {
  stream blocking;
  device_buffer<int> x(N);
  mem::fill(x.get(), 0, 4, N, stream_view::legacy_default());
  slow(x.get(), slow_repeat(), stream_view::legacy_default());
  fill(x.get(), 9, blocking);
  blocking.synchronize();
  EXPECT_TRUE(stream_view::legacy_default().is_idle());
  EXPECT_EQ(x.download(blocking), std::vector<int>(N, 9));
}

TEST_F(Streams, LegacyDefaultStreamWaitsForAHeldBlockingStream) {
  stream blocking;
  mapped_buffer<int> x(N);
  gate g;
  blocking.add_callback(g.hold());
  ASSERT_TRUE(g.wait_reached());
  fill(x.device(), 4, stream_view::legacy_default());
  std::this_thread::sleep_for(100ms);
  EXPECT_FALSE(stream_view::legacy_default().is_idle());
  EXPECT_TRUE(x.all(0)) << "the legacy stream ran ahead of a blocking stream's earlier work";
  g.open();
  stream_view::legacy_default().synchronize();
  EXPECT_TRUE(x.all(4));
}

TEST_F(Streams, NonBlockingStreamDoesNotOrderWithTheLegacyDefaultStream) {
  stream non_blocking(stream::options{.non_blocking = true});
  mapped_buffer<int> x(N), y(N);
  gate g;
  non_blocking.add_callback(g.hold());
  ASSERT_TRUE(g.wait_reached());
  fill(y.device(), 1, non_blocking);  // held behind the gate
  // The legacy stream must not wait for the held non-blocking stream.
  fill(x.device(), 2, stream_view::legacy_default());
  EXPECT_TRUE(eventually([] { return stream_view::legacy_default().is_idle(); }, 10000ms))
      << "the legacy default stream waited for a non-blocking stream";
  EXPECT_TRUE(x.all(2));
  EXPECT_TRUE(y.all(0));
  // Nor does the non-blocking stream wait for the legacy one: hold the
  // legacy stream, then run on the non-blocking one.
  g.open();
  non_blocking.synchronize();
  EXPECT_TRUE(y.all(1));
  gate g2;
  stream_view::legacy_default().add_callback(g2.hold());
  ASSERT_TRUE(g2.wait_reached());
  fill(y.device(), 3, non_blocking);
  EXPECT_TRUE(eventually([&] { return non_blocking.is_idle(); }, 10000ms))
      << "a non-blocking stream waited for the legacy default stream";
  EXPECT_TRUE(y.all(3));
  g2.open();
  stream_view::legacy_default().synchronize();
}

TEST_F(Streams, PerThreadDefaultStreamsAreIndependentPerThread) {
  mapped_buffer<int> a(N), b(N);
  gate g;
  std::promise<void> a_held, b_done, a_checked;
  std::future<void> a_checked_f = a_checked.get_future();
  std::atomic<bool> a_idle_while_held{true}, a_ok{false};
  std::thread ta([&] {
    auto pt = stream_view::per_thread_default();
    pt.add_callback(g.hold());
    fill(a.device(), 1, pt);
    a_held.set_value();
    a_idle_while_held = pt.is_idle();
    a_checked.set_value();
    pt.synchronize();  // returns once the main thread opens the gate
    a_ok = a.all(1);
  });
  a_held.get_future().wait();
  EXPECT_TRUE(g.wait_reached());
  // Another thread's per-thread default stream is a different stream.
  std::thread tb([&] {
    auto pt = stream_view::per_thread_default();
    fill(b.device(), 2, pt);
    pt.synchronize();
    b_done.set_value();
  });
  auto b_done_f = b_done.get_future();
  bool b_finished = b_done_f.wait_for(10s) == std::future_status::ready;
  EXPECT_TRUE(b_finished) << "thread B's per-thread stream waited for thread A's";
  EXPECT_TRUE(b.all(2));
  a_checked_f.wait();
  EXPECT_FALSE(a_idle_while_held.load());
  EXPECT_TRUE(a.all(0));
  // This thread's own per-thread stream is idle, whatever thread A holds.
  EXPECT_TRUE(stream_view::per_thread_default().is_idle());
  // A per-thread default stream is a blocking stream: the legacy default
  // stream waits for thread A's held work.
  mapped_buffer<int> c(N);
  fill(c.device(), 3, stream_view::legacy_default());
  std::this_thread::sleep_for(100ms);
  EXPECT_TRUE(c.all(0)) << "the legacy default stream ran ahead of a per-thread default stream";
  g.open();
  ta.join();
  if (tb.joinable()) tb.join();
  EXPECT_TRUE(a_ok.load());
  stream_view::legacy_default().synchronize();
  EXPECT_TRUE(c.all(3));
}

// ---------------------------------------------------------------------------
// Host callbacks

TEST_F(Streams, CallbacksRunAfterPriorWorkAndBeforeLaterWork) {
  stream s;
  mapped_buffer<int> x(N);
  std::vector<int> seen;
  std::atomic<bool> saw_prior{false};
  fill(x.device(), 1, s);
  s.add_callback([&] {
    saw_prior = x.all(1);
    std::this_thread::sleep_for(20ms);  // later work must still wait
    for (std::size_t i = 0; i < x.size(); ++i) x.set(i, 5);
  });
  slow(x.device(), 1, s);  // 5 + 1 only when it ran after the callback
  for (int i = 0; i < 3; ++i) s.add_callback([&seen, i] { seen.push_back(i); });
  s.synchronize();
  EXPECT_TRUE(saw_prior.load()) << "the callback ran before the kernel queued ahead of it";
  EXPECT_TRUE(x.all(6)) << "the kernel queued after the callback did not wait for it";
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2}));
}

TEST_F(Streams, CallbacksRunOnACallbackThread) {
  stream s;
  std::atomic<int> flagged{-1};
  s.add_callback([&] { flagged = on_callback_thread() ? 1 : 0; });
  s.synchronize();
  EXPECT_EQ(flagged.load(), 1) << "on_callback_thread() must be true inside a host callback";
  EXPECT_FALSE(on_callback_thread());
}

TEST_F(Streams, WaitingForTheDeviceInACallbackIsNotPermitted) {
  stream s;
  event e;
  e.record(s);
  std::vector<int> statuses;
  s.add_callback([&] {
    for (auto wait : std::initializer_list<std::function<void()>>{
             [&] { s.synchronize(); }, [&] { e.synchronize(); }, [] { cuforge::synchronize(); }}) {
      try {
        wait();
        statuses.push_back(0);
      } catch (const cuda_error& err) {
        statuses.push_back(err.status());
      }
    }
  });
  s.synchronize();  // no deadlock: each wait was refused
  EXPECT_EQ(statuses, (std::vector<int>{800, 800, 800}));  // CUDA_ERROR_NOT_PERMITTED, as the driver answers
  s.synchronize();
}

TEST_F(Streams, ThrowingCallbackDoesNotBreakTheStream) {
  stream s;
  mapped_buffer<int> x(N);
  s.add_callback([] { throw std::runtime_error("callback failure (expected by the test)"); });
  fill(x.device(), 8, s);
  EXPECT_NO_THROW(s.synchronize());
  EXPECT_TRUE(x.all(8));
}

TEST_F(Streams, EmptyCallbackIsRejected) {
  stream s;
  EXPECT_THROW(s.add_callback(std::function<void()>()), logic_error);
  EXPECT_THROW(stream_view{}.add_callback(nullptr), logic_error);
}

// ---------------------------------------------------------------------------
// Events

TEST_F(Streams, EventNeverRecordedIsComplete) {
  event e;
  EXPECT_TRUE(e.query());
  EXPECT_NO_THROW(e.synchronize());
  EXPECT_TRUE(e.has_timing());
  EXPECT_EQ(e.device(), 0);
  EXPECT_NE(e.handle(), 0u);
  stream s;
  EXPECT_NO_THROW(s.wait(e));
  EXPECT_NO_THROW(s.synchronize());
}

TEST_F(Streams, EventRecordQueryAndSynchronize) {
  stream s;
  event e;
  gate g;
  s.add_callback(g.hold());
  e.record(s);
  ASSERT_TRUE(g.wait_reached());
  EXPECT_FALSE(e.query());
  g.open();
  e.synchronize();
  EXPECT_TRUE(e.query());
  // Recording again marks the new end of the queue.
  gate g2;
  s.add_callback(g2.hold());
  e.record(s);
  EXPECT_FALSE(e.query());
  g2.open();
  e.synchronize();
  EXPECT_TRUE(e.query());
}

TEST_F(Streams, StreamWaitsForAnEventOfAnotherStream) {
  stream a, b;
  event e(event::options{.timing = false});
  mapped_buffer<int> x(N);
  gate g;
  a.add_callback(g.hold());
  e.record(a);
  b.wait(e);
  fill(x.device(), 12, b);
  ASSERT_TRUE(g.wait_reached());
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(b.is_idle()) << "stream b did not wait for the event";
  EXPECT_TRUE(x.all(0));
  g.open();
  b.synchronize();
  EXPECT_TRUE(e.query());
  EXPECT_TRUE(x.all(12));

  // The same through event::wait, with data: a's slow kernel, then b's fill.
  device_buffer<int> y(N);
  mem::fill(y.get(), 0, 4, N, a);
  slow(y.get(), slow_repeat(), a);
  event e2;
  e2.record(a);
  e2.wait(b);
  fill(y.get(), 13, b);
  b.synchronize();
  EXPECT_TRUE(e2.query());
  EXPECT_EQ(y.download(b), std::vector<int>(N, 13));
}

TEST_F(Streams, ElapsedTimeAroundASlowKernel) {
  stream s;
  device_buffer<int> x(N);
  mem::fill(x.get(), 0, 4, N, s);
  event start, end;
  start.record(s);
  slow(x.get(), slow_repeat(40.0), s);
  end.record(s);
  end.synchronize();
  float ms = start.elapsed_ms(end);
  EXPECT_GT(ms, 1.0f) << "a kernel calibrated to ~40 ms";
  EXPECT_LT(ms, 60000.0f);
  EXPECT_EQ(elapsed_ms(start, end), ms);
  EXPECT_LE(end.elapsed_ms(start), 0.0f) << "end to start runs backwards";
}

TEST_F(Streams, ElapsedTimeErrors) {
  stream s;
  event untimed(event::options{.timing = false});
  event timed;
  EXPECT_FALSE(untimed.has_timing());
  untimed.record(s);
  timed.record(s);
  s.synchronize();
  CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_INVALID_HANDLE, (void)untimed.elapsed_ms(timed));
  CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_INVALID_HANDLE, (void)timed.elapsed_ms(untimed));
  CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_INVALID_HANDLE, (void)elapsed_ms(untimed, untimed));

  event never;
  CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_INVALID_HANDLE, (void)timed.elapsed_ms(never));

  event start, end;
  gate g;
  start.record(s);
  s.add_callback(g.hold());
  end.record(s);
  ASSERT_TRUE(g.wait_reached());
  CUFORGE_EXPECT_CUDA_ERROR(CUDA_ERROR_NOT_READY, (void)start.elapsed_ms(end));
  g.open();
  end.synchronize();
  EXPECT_GE(start.elapsed_ms(end), 0.0f);
}

TEST_F(Streams, EventsMove) {
  event a;
  auto h = a.handle();
  event b(std::move(a));
  EXPECT_EQ(b.handle(), h);
  EXPECT_EQ(a.handle(), 0u);
  event c(event::options{.timing = false});
  c = std::move(b);
  EXPECT_EQ(c.handle(), h);
  EXPECT_TRUE(c.has_timing());
  c.record();
  c.synchronize();
  EXPECT_TRUE(c.query());
}

}  // namespace
