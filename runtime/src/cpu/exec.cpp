#include "cpu/exec.hpp"

#include "cpu/fiber.hpp"
#include "cpu/private_sums.hpp"
#include "status.hpp"

#include <cuforge/runtime/error.hpp>

#include <csetjmp>
#include <csignal>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <vector>

namespace cuforge::detail::cpu_exec {

namespace {

// What cpu::current() returns. The scheduler writes it through a pointer
// taken once per OS thread: in a shared library each direct access is a
// __tls_get_addr call, and it is written on every switch.
thread_local cpu::thread_context* tls_current = nullptr;

// ---------------------------------------------------------------------------
// Settings, read once from the environment.

constexpr std::size_t default_stack_kb = 256;
constexpr std::size_t min_stack_kb = 16;
constexpr std::size_t max_stack_kb = std::size_t{1} << 20;
// Cooperative launches hold every thread of the grid as a fiber at once, so
// they get a quarter of the stack and a fixed budget of address space.
constexpr std::size_t cooperative_stack_divisor = 4;
constexpr std::size_t cooperative_address_budget = std::size_t{1} << 30;
constexpr unsigned long long cooperative_thread_cap = 16384;
// Cooperative fibers kept after a launch; more are unmapped again so that
// one huge cooperative launch does not pin its stacks for the process's life.
constexpr std::size_t cooperative_fibers_kept = 4096;

unsigned long long env_number(const char* name, unsigned long long fallback,
                              unsigned long long lo, unsigned long long hi) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  unsigned long long v = std::strtoull(text, &end, 10);
  if (end == text || *end != '\0' || v == 0) return fallback;
  return std::clamp(v, lo, hi);
}

struct settings {
  unsigned workers;
  std::size_t stack_bytes;
  std::size_t cooperative_stack_bytes;
  unsigned long long max_cooperative_threads;
};

const settings& config() {
  static const settings s = [] {
    settings c{};
    unsigned cores = std::thread::hardware_concurrency();
    c.workers = static_cast<unsigned>(env_number("CUFORGE_CPU_THREADS", cores ? cores : 1, 1, 4096));
    c.stack_bytes = env_number("CUFORGE_CPU_STACK_KB", default_stack_kb, min_stack_kb, max_stack_kb) * 1024;
    c.cooperative_stack_bytes =
        std::max(min_stack_kb * 1024, c.stack_bytes / cooperative_stack_divisor);
    c.max_cooperative_threads =
        std::min(cooperative_thread_cap,
                 static_cast<unsigned long long>(cooperative_address_budget / c.cooperative_stack_bytes));
    return c;
  }();
  return s;
}

// ---------------------------------------------------------------------------
// One launch, shared by every OS thread that works on it.

cpu::uint3 to_uint3(const dim3& d) noexcept { return {d.x, d.y, d.z}; }

cpu::uint3 block_coords(unsigned long long linear, const cpu::uint3& grid) noexcept {
  cpu::uint3 b;
  b.x = static_cast<unsigned>(linear % grid.x);
  linear /= grid.x;
  b.y = static_cast<unsigned>(linear % grid.y);
  b.z = static_cast<unsigned>(linear / grid.y);
  return b;
}

std::string describe(const cpu::uint3& v) {
  std::string s = "(";
  s += std::to_string(v.x);
  s += ',';
  s += std::to_string(v.y);
  s += ',';
  s += std::to_string(v.z);
  s += ')';
  return s;
}

/// The thread of an error in a block run by its kernel's block entry, in one
/// call: not known.
constexpr cpu::uint3 unknown_thread{~0u, ~0u, ~0u};

struct launch_state {
  explicit launch_state(const grid_launch& l)
      : fn(l.fn),
        block_fn(l.cooperative ? nullptr : l.block_fn),
        params(l.params),
        grid(to_uint3(l.grid)),
        block(to_uint3(l.block)),
        static_shared_bytes(l.static_shared_bytes),
        dynamic_shared_bytes(l.dynamic_shared_bytes),
        shared_bytes(((l.static_shared_bytes + 15) & ~std::size_t{15}) + l.dynamic_shared_bytes),
        total_blocks(l.grid.count()),
        threads_per_block(l.block.count()),
        uses_barrier(l.uses_barrier),
        // Rows of blocks share one shared memory, so only launches without any.
        block_runs(block_fn != nullptr && l.block_runs && !l.uses_barrier && shared_bytes == 0),
        // A barrier among one thread is a no-op, so such blocks need no fibers; nor do blocks a
        // block entry runs (a kernel with barriers has one when it meets them in regions).
        fibers(l.cooperative || (l.uses_barrier && l.block.count() > 1 && l.block_fn == nullptr)) {}

  /// Keeps the first error of the launch; later ones are dropped.
  void record(const char* what, const cpu::uint3& block_idx, const cpu::uint3& thread_idx, unsigned run = 1) noexcept {
    if (failed.exchange(true, std::memory_order_acq_rel)) return;
    error_block = block_idx;
    error_thread = thread_idx;
    error_run = run;
    try {
      error = what;
    } catch (...) {
      // Out of memory while describing an error: the launch still fails.
    }
  }

  cpu::kernel_fn fn;
  cpu::kernel_fn block_fn;  ///< runs a whole block in one call, or nullptr
  void** params;
  cpu::uint3 grid;
  cpu::uint3 block;
  std::size_t static_shared_bytes;
  std::size_t dynamic_shared_bytes;
  std::size_t shared_bytes;
  unsigned long long total_blocks;
  unsigned long long threads_per_block;
  bool uses_barrier;
  bool block_runs;  ///< block_fn takes rows of blocks (ctx.block_run)
  bool fibers;
  std::size_t param_count = 0;
  std::vector<private_sum> sums;  ///< the arrays each worker adds into a copy of (private_sums.hpp)

  unsigned long long chunk = 1;  ///< blocks per claim
  std::atomic<unsigned long long> next_block{0};

  std::atomic<bool> failed{false};
  std::string error;
  cpu::uint3 error_block;
  cpu::uint3 error_thread;
  unsigned error_run = 1;  ///< the blocks along x from error_block a row-of-blocks entry ran (row_of_blocks_thread)

  // The pool's queue of launches with blocks left; guarded by its mutex.
  launch_state* prev = nullptr;
  launch_state* next = nullptr;
  bool queued = false;
  unsigned workers_in = 0;
};

// ---------------------------------------------------------------------------
// Per-OS-thread execution: blocks as loops or as fibers.

// What thread_context::scheduler points at: a fiber (slot), or one of two
// markers for blocks run as a plain loop.
enum class exec_kind : unsigned char { loop_without_barrier, loop_single_thread, fiber };

struct exec_tag {
  exec_kind kind;
};

exec_tag loop_without_barrier_tag{exec_kind::loop_without_barrier};
exec_tag loop_single_thread_tag{exec_kind::loop_single_thread};

struct barrier_state {
  unsigned long long arrived = 0;
  unsigned long long live = 0;  ///< threads not exited, unstarted ones included
  unsigned long long generation = 0;
};

/// The lanes of a warp that meet at one warp operation: those of `mask`
/// that have not exited (barrier.live). Open while barrier.arrived != 0.
struct warp_meeting {
  std::uint32_t mask = 0;
  barrier_state barrier;
};

/// A warp of a block (32 consecutive linear thread ids): its meetings (one
/// per member mask waited on now), the lanes that have not exited, and the
/// values its lanes offer to a shuffle, vote or match, read once their
/// meeting releases.
struct warp_state {
  // Every lane waits at one meeting at most, and the lane opening one is not
  // waiting, so 32 always leave a free one. Fixed: fibers hold pointers to
  // their barriers, whose generations must only grow.
  warp_meeting meetings[32];
  std::uint32_t open = 0;  ///< bit k: meetings[k] may be open (a superset)
  std::uint32_t live = 0;  ///< bit i: lane i has not exited
  std::uint64_t offered[32] = {};
};

class scheduler;

// --- faults in kernel code ----------------------------------------------------------------
//
// A kernel that touches memory it may not (an index far out of range) faults
// with SIGSEGV or SIGBUS. While an OS thread runs kernel code it has a fault
// point; the handler jumps back to it, and the launch fails with an error
// naming the thread and the address, as a GPU's launch fails with an illegal
// address, instead of the process dying. Faults anywhere else go to the
// handler that was there before (Python's faulthandler, or the default).
// What a wild write does to memory it may touch is not caught: boundscheck=True
// finds those (docs/debugging.md).

struct fault_point {
  sigjmp_buf env;
  void* address = nullptr;
  int signo = 0;
  cpu::uint3 block{}, thread{};  ///< the faulting kernel thread's (copied: its frame is gone after the jump)
  unsigned run = 1;              ///< its context's block_run
};

thread_local fault_point* tls_fault = nullptr;
struct sigaction previous_segv {};
struct sigaction previous_bus {};

void on_fault(int sig, siginfo_t* info, void* uc) {
  if (fault_point* f = tls_fault) {
    tls_fault = nullptr;
    f->address = info->si_addr;
    f->signo = sig;
    if (const cpu::thread_context* ctx = tls_current) {
      f->block = ctx->block_idx;
      f->thread = ctx->thread_idx;
      f->run = ctx->block_run;
    }
    siglongjmp(f->env, 1);
  }
  const struct sigaction& old = sig == SIGSEGV ? previous_segv : previous_bus;
  if ((old.sa_flags & SA_SIGINFO) != 0 && old.sa_sigaction != nullptr) {
    old.sa_sigaction(sig, info, uc);
    return;
  }
  if (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN && old.sa_handler != nullptr) {
    old.sa_handler(sig);
    return;
  }
  sigaction(sig, &old, nullptr);  // the default: the fault repeats on return, and ends the process
}

/// Installs the handler (once) and gives this OS thread an alternate signal
/// stack (a fault of a full stack needs one); then kernel code may run.
void prepare_fault_handling() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &previous_segv);
    sigaction(SIGBUS, &sa, &previous_bus);
  });
  thread_local bool ready = false;
  if (ready) return;
  ready = true;
  stack_t now{};
  if (sigaltstack(nullptr, &now) == 0 && (now.ss_flags & SS_DISABLE) == 0) return;  // it has one
  constexpr std::size_t bytes = 64 * 1024;
  thread_local std::unique_ptr<char[]> memory(new char[bytes]);
  stack_t alt{};
  alt.ss_sp = memory.get();
  alt.ss_size = bytes;
  sigaltstack(&alt, nullptr);
}

std::string fault_message(const fault_point& f) {
  char address[48] = "";
  if (f.address != nullptr) std::snprintf(address, sizeof address, " at address %p", f.address);
  return std::string("the kernel touched memory it may not (") + (f.signo == SIGBUS ? "SIGBUS" : "SIGSEGV") +
         address + "): an index out of range? @cuda.jit(boundscheck=True) names the array and index";
}

/// A fiber and the kernel thread it runs.
struct slot : exec_tag {
  slot(scheduler& s, std::size_t stack_bytes, std::size_t colour);

  scheduler* sched;
  cpu::thread_context ctx;
  barrier_state* block = nullptr;       ///< the barrier of the thread's block
  warp_state* warp = nullptr;           ///< the thread's warp
  unsigned lane = 0;                    ///< its lane in the warp
  barrier_state* waiting_at = nullptr;  ///< where it is suspended
  unsigned long long wait_generation = 0;
  bool aborted = false;  ///< resumed only to fail: its barrier can never complete
  unsigned long long launch_serial = 0;  ///< the launch ctx's shared fields are set for
  slot* link = nullptr;  ///< run queue or idle list
  fiber fib;
};

struct fiber_pool {
  std::size_t stack_bytes = 0;
  std::vector<std::unique_ptr<slot>> all;
  slot* idle = nullptr;  ///< LIFO, so the most recently used (cache-warm) stack goes first
};

/// A growable 64-byte-aligned buffer for the shared memory of the blocks in
/// flight on one OS thread.
class shared_buffer {
 public:
  shared_buffer() { reserve(64); }
  ~shared_buffer() { ::operator delete(data_, alignment); }
  shared_buffer(const shared_buffer&) = delete;
  shared_buffer& operator=(const shared_buffer&) = delete;

  char* reserve(std::size_t bytes) {
    if (bytes > capacity_) {
      std::size_t grown = std::max(bytes, capacity_ * 2);
      void* fresh = ::operator new(grown, alignment);
      ::operator delete(data_, alignment);
      data_ = static_cast<char*>(fresh);
      capacity_ = grown;
    }
    return data_;
  }

 private:
  static constexpr std::align_val_t alignment{64};
  char* data_ = nullptr;
  std::size_t capacity_ = 0;
};

// Past the end of each block's shared memory: a guard, checked after the
// block, and past the batch's last block slack, never checked. A kernel that
// writes past its shared memory (a shared.array(0) launched with too few
// dynamic bytes) fails its launch, as an out-of-range shared access does on a
// GPU, instead of corrupting the heap; a read there gets garbage, as on a GPU.
constexpr std::size_t shared_guard_bytes = 256;
constexpr std::size_t shared_slack_bytes = 64 * 1024;
constexpr unsigned char shared_guard_value = 0xA5;

void arm_shared_guard(char* end) noexcept { std::memset(end, shared_guard_value, shared_guard_bytes); }

bool shared_guard_intact(const char* end) noexcept {
  static const auto pattern = [] {
    std::array<unsigned char, shared_guard_bytes> p{};
    p.fill(shared_guard_value);
    return p;
  }();
  return std::memcmp(end, pattern.data(), shared_guard_bytes) == 0;
}

// One block's shared memory, its guard and the alignment of the next block's.
std::size_t shared_stride(std::size_t shared_bytes) noexcept {
  return (shared_bytes + shared_guard_bytes + 63) & ~std::size_t{63};
}

std::string shared_overrun_message(std::size_t static_bytes, std::size_t dynamic_bytes) {
  return "the kernel wrote past the end of its block's shared memory (" + std::to_string(static_bytes) +
         " bytes of static shared arrays, " + std::to_string(dynamic_bytes) +
         " dynamic bytes given at launch): an index out of range, or a cuda.shared.array(0) that needs more "
         "dynamic shared memory than the launch gave (kernel[grid, block, stream, dynamic_bytes])";
}

[[noreturn]] void throw_deadlock() {
  throw logic_error(
      "barrier deadlock: every remaining thread waits at a barrier that can no longer complete "
      "(threads of a block disagree on __syncthreads and grid sync, or lanes of a warp on a warp "
      "function's member mask)");
}

/// Runs blocks on the OS thread that owns it. One per OS thread, created on
/// first use; the fibers it makes never leave that thread.
///
/// Fiber mode runs a batch of blocks (one block, or the whole grid of a
/// cooperative launch) as fibers. A fiber runs unstarted threads one after
/// another on its own stack until one waits at a barrier; then a fresh fiber
/// takes the next unstarted thread, or, when none is left, the oldest
/// suspended fiber whose barrier has released resumes. So a kernel that
/// never reaches a barrier costs no switch per thread, and one that does
/// costs one switch per thread per barrier.
class scheduler {
 public:
  scheduler() {
    block_pool_.stack_bytes = config().stack_bytes;
    cooperative_pool_.stack_bytes = config().cooperative_stack_bytes;
    barriers_.resize(1);
  }
  scheduler(const scheduler&) = delete;
  scheduler& operator=(const scheduler&) = delete;

  /// Claims and runs blocks of `st` until none are left.
  void run_claims(launch_state& st) {
    ++launch_serial_;
    params_ = st.params;
    bool private_copies = false;
    for (;;) {
      unsigned long long first = st.next_block.fetch_add(st.chunk, std::memory_order_relaxed);
      if (first >= st.total_blocks) break;
      unsigned long long last = std::min(first + st.chunk, st.total_blocks);
      if (!st.sums.empty() && !private_copies) {
        try {
          params_ = copies_.make(st.sums, st.params, st.param_count);
          private_mask_ = copies_.mask();
          private_copies = true;
        } catch (const std::bad_alloc&) {
          // No memory for the copies: this worker adds into the arrays themselves.
        }
      }
      try {
        guarded(st, [&] {
          if (st.fibers) {
            run_fiber_blocks(st, first, last);
          } else {
            run_loop_blocks(st, first, last);
          }
        });
      } catch (const std::exception& e) {
        // Only our own setup throws here (no memory for shared memory or a
        // stack); kernel exceptions are caught per thread.
        st.record(e.what(), block_coords(first, st.grid), {});
      }
    }
    if (private_copies) copies_.add_into_arrays(st.sums);
    params_ = nullptr;
    private_mask_ = 0;
  }

  /// Runs the whole grid of `st` as fibers of this thread, with a grid barrier.
  void run_cooperative(launch_state& st) {
    std::size_t stride = shared_stride(st.shared_bytes);
    barriers_.assign(st.total_blocks, barrier_state{0, st.threads_per_block, 0});
    reset_warps(st, st.total_blocks);
    grid_ = barrier_state{0, st.total_blocks * st.threads_per_block, 0};
    cooperative_ = true;
    ++launch_serial_;
    params_ = st.params;
    guarded(st, [&] { run_batch(st, cooperative_pool_, 0, st.total_blocks, stride); });
    cooperative_ = false;
    barriers_.resize(1);
    trim(cooperative_pool_, cooperative_fibers_kept);
  }

  /// Runs `body` (which runs kernel code) with a fault point: a fault in it
  /// fails the launch, ends the rest of its blocks, and drops the fibers the
  /// faulting batch left suspended; then this thread goes on.
  template <class Body>
  void guarded(launch_state& st, Body&& body) {
    prepare_fault_handling();
    fault_point point;
    // The signal mask is not saved (that is a system call per chunk of blocks); after_fault
    // unblocks what the handler's entry blocked.
    if (sigsetjmp(point.env, 0) != 0) {
      after_fault(st, point);
      return;
    }
    tls_fault = &point;
    try {
      body();
    } catch (...) {
      tls_fault = nullptr;
      throw;
    }
    tls_fault = nullptr;
  }

  void after_fault(launch_state& st, const fault_point& point) {
    sigset_t faults;
    sigemptyset(&faults);
    sigaddset(&faults, SIGSEGV);
    sigaddset(&faults, SIGBUS);
    pthread_sigmask(SIG_UNBLOCK, &faults, nullptr);  // blocked since the handler was entered
    bool overflow = false;  // into the guard page below a fiber's stack
    if (st.fibers && pool_ != nullptr)
      for (const auto& s : pool_->all) overflow = overflow || s->fib.guards(point.address);
    const std::string what =
        overflow ? "the kernel overflowed its thread's stack (" + std::to_string(pool_->stack_bytes / 1024) +
                       " KiB: deep recursion, or large local arrays; CUFORGE_CPU_STACK_KB sets it)"
                 : fault_message(point);
    st.record(what.c_str(), point.block, point.thread, point.run);
    st.next_block.store(st.total_blocks, std::memory_order_relaxed);  // no more blocks for anyone
    *current_ = nullptr;
    if (st.fibers && pool_ != nullptr) {
      // The fibers of the batch are stopped mid-kernel: drop all but the idle ones.
      std::vector<slot*> idle;
      for (slot* i = pool_->idle; i != nullptr; i = i->link) idle.push_back(i);
      std::erase_if(pool_->all, [&](const std::unique_ptr<slot>& p) {
        return std::find(idle.begin(), idle.end(), p.get()) == idle.end();
      });
      head_ = tail_ = nullptr;
      queued_ = 0;
      unstarted_ = false;
      launch_ = nullptr;
      write_fp_control(batch_fp_);
    }
  }

  // Called by kernel threads, on their fiber.

  void block_barrier(slot& self) { arrive(self, *self.block); }

  void warp_barrier(slot& self, std::uint32_t mask) {
    arrive(self, meeting(*self.warp, member_mask(self, mask)));
  }

  /// The lanes of `mask` that have not exited each offer `value`; once all
  /// have, `read(w, members)` gives this lane's answer, and a second meeting
  /// keeps the offers until every member has read them.
  template <class Read>
  std::uint64_t warp_exchange(slot& self, std::uint32_t mask, std::uint64_t value, Read read) {
    warp_state& w = *self.warp;
    const std::uint32_t m = member_mask(self, mask);
    w.offered[self.lane] = value;
    arrive(self, meeting(w, m));
    // Every member not exited has offered: the meeting released on all of them.
    const std::uint64_t r = read(w, m & w.live);
    arrive(self, meeting(w, m));
    return r;
  }

  void grid_barrier(slot& self) {
    if (!cooperative_) {
      throw logic_error(
          "grid sync outside a cooperative launch: launch the kernel as cooperative to use a "
          "grid-wide barrier");
    }
    arrive(self, grid_);
  }

  [[noreturn]] static void fiber_main(void* arg) {
    slot& self = *static_cast<slot*>(arg);
    scheduler& s = *self.sched;
    for (;;) {
      while (s.take_thread(self)) {
        s.run_thread(self);
        s.thread_exited(self);
      }
      s.park(self);
    }
  }

 private:
  void run_loop_blocks(launch_state& st, unsigned long long first, unsigned long long last) {
    cpu::thread_context ctx;
    ctx.block_dim = st.block;
    ctx.grid_dim = st.grid;
    ctx.static_shared_bytes = st.static_shared_bytes;
    ctx.dynamic_shared_bytes = st.dynamic_shared_bytes;
    ctx.private_sums = private_mask_;
    ctx.shared = shared_.reserve(st.shared_bytes + shared_guard_bytes + shared_slack_bytes);
    char* guard = static_cast<char*>(ctx.shared) + st.shared_bytes;
    arm_shared_guard(guard);
    // A kernel declared without barriers that calls one is wrong at any block
    // size: say so even where the barrier would be harmless.
    ctx.scheduler = st.uses_barrier ? &loop_single_thread_tag : &loop_without_barrier_tag;
    *current_ = &ctx;
    const fp_control fp = read_fp_control();
    for (unsigned long long b = first; b < last; b += ctx.block_run) {
      ctx.block_idx = block_coords(b, st.grid);
      // A row of blocks along x in one call where the entry takes them: to the claim's end or
      // the grid's row's, whichever comes first.
      ctx.block_run = st.block_runs ? static_cast<unsigned>(std::min<unsigned long long>(last - b, st.grid.x - ctx.block_idx.x)) : 1;
      if (st.shared_bytes != 0) std::memset(ctx.shared, 0, st.shared_bytes);
      if (st.block_fn != nullptr) {
        run_block_entry(st, ctx, params_);
      } else {
        run_threads(st, ctx, params_);
      }
      if (!shared_guard_intact(guard)) [[unlikely]] {
        st.record(shared_overrun_message(st.static_shared_bytes, st.dynamic_shared_bytes).c_str(), ctx.block_idx, {});
        arm_shared_guard(guard);
      }
    }
    // A kernel thread may have changed the rounding mode: not for the
    // worker. (Within a chunk, the threads of a loop share it.)
    if (read_fp_control() != fp) write_fp_control(fp);
    *current_ = nullptr;
  }

  /// The threads of ctx's block, one call each, x fastest.
  static void run_threads(launch_state& st, cpu::thread_context& ctx, void** params) {
    const cpu::uint3 bd = st.block;
    for (unsigned z = 0; z < bd.z; ++z) {
      for (unsigned y = 0; y < bd.y; ++y) {
        for (unsigned x = 0; x < bd.x; ++x) {
          ctx.thread_idx = {x, y, z};
          try {
            st.fn(&ctx, params);
          } catch (const cpu::thread_exit&) {
            // The thread ended early, having reported why: the launch goes on.
          } catch (const std::exception& e) {
            st.record(e.what(), ctx.block_idx, ctx.thread_idx);
          } catch (...) {
            st.record("unknown exception", ctx.block_idx, ctx.thread_idx);
          }
        }
      }
    }
  }

  /// The threads of ctx's block in one call of the kernel's block entry. A
  /// fault or an exception there is not known to come from one thread
  /// (unless the block has one: ctx.thread_idx is what a fault reports).
  static void run_block_entry(launch_state& st, cpu::thread_context& ctx, void** params) {
    ctx.thread_idx = st.threads_per_block == 1 ? cpu::uint3{} : unknown_thread;
    try {
      st.block_fn(&ctx, params);
    } catch (const std::exception& e) {
      st.record(e.what(), ctx.block_idx, ctx.thread_idx);
    } catch (...) {
      st.record("unknown exception", ctx.block_idx, ctx.thread_idx);
    }
  }

  void run_fiber_blocks(launch_state& st, unsigned long long first, unsigned long long last) {
    std::size_t stride = shared_stride(st.shared_bytes);
    for (unsigned long long b = first; b < last; ++b) {
      barriers_[0] = barrier_state{0, st.threads_per_block, 0};
      reset_warps(st, 1);
      run_batch(st, block_pool_, b, 1, stride);
    }
  }

  /// Runs `count` blocks from `first` as one batch of fibers; returns when
  /// every thread has exited.
  void run_batch(launch_state& st, fiber_pool& pool, unsigned long long first,
                 unsigned long long count, std::size_t stride) {
    launch_ = &st;
    pool_ = &pool;
    batch_first_ = first;
    batch_blocks_ = count;
    shared_stride_ = stride;
    batch_shared_ = shared_.reserve(stride * count + shared_slack_bytes);
    if (st.shared_bytes != 0) std::memset(batch_shared_, 0, stride * count);
    for (unsigned long long b = 0; b < count; ++b) arm_shared_guard(batch_shared_ + b * stride + st.shared_bytes);
    cursor_x_ = cursor_y_ = cursor_z_ = 0;
    block_x_ = st.block.x;
    block_y_ = st.block.y;
    block_z_ = st.block.z;
    cursor_index_ = 0;
    point_cursor_at_block(0);
    unstarted_ = true;
    batch_fp_ = read_fp_control();
    slot* s = nullptr;
    try {
      s = acquire();
    } catch (const std::exception& e) {
      st.record(e.what(), cursor_block_, {});
      unstarted_ = false;
      return;
    }
    switch_context(native_, s->fib.context());
    *current_ = nullptr;
    for (unsigned long long b = 0; b < count; ++b)
      if (!shared_guard_intact(batch_shared_ + b * stride + st.shared_bytes)) [[unlikely]] {
        st.record(shared_overrun_message(st.static_shared_bytes, st.dynamic_shared_bytes).c_str(),
                  block_coords(first + b, st.grid), {});
        break;
      }
  }

  void reset_warps(const launch_state& st, unsigned long long blocks) {
    const unsigned long long threads = st.threads_per_block;
    warps_per_block_ = (threads + 31) / 32;
    warps_.resize(blocks * warps_per_block_);
    for (unsigned long long b = 0; b < blocks; ++b)
      for (unsigned long long w = 0; w < warps_per_block_; ++w) {
        const unsigned long long lanes = std::min<unsigned long long>(32, threads - 32 * w);
        warp_state& s = warps_[b * warps_per_block_ + w];
        // A batch ends with every meeting released; their generations may
        // carry on, as no fiber waits across batches.
        for (std::uint32_t k = s.open; k != 0; k &= k - 1) s.meetings[std::countr_zero(k)].barrier.arrived = 0;
        s.open = 0;
        s.live = lanes == 32 ? 0xFFFFFFFFu : (std::uint32_t{1} << lanes) - 1;
      }
  }

  void point_cursor_at_block(unsigned long long index) {
    cursor_block_ = block_coords(batch_first_ + index, launch_->grid);
    cursor_barrier_ = &barriers_[index];
    cursor_shared_ = batch_shared_ + index * shared_stride_;
  }

  /// Gives `self` the next unstarted thread of the batch, if any.
  bool take_thread(slot& self) noexcept {
    if (!unstarted_) return false;
    cpu::thread_context& ctx = self.ctx;
    if (self.launch_serial != launch_serial_) [[unlikely]] {
      // What every thread of the launch shares: set once per fiber per launch.
      const launch_state& st = *launch_;
      ctx.block_dim = st.block;
      ctx.grid_dim = st.grid;
      ctx.static_shared_bytes = st.static_shared_bytes;
      ctx.dynamic_shared_bytes = st.dynamic_shared_bytes;
      ctx.private_sums = private_mask_;
      ctx.scheduler = static_cast<exec_tag*>(&self);
      self.launch_serial = launch_serial_;
    }
    // Field by field: copying the cursor as a whole would read back bytes
    // just written by narrower stores, which stalls store forwarding.
    ctx.thread_idx.x = cursor_x_;
    ctx.thread_idx.y = cursor_y_;
    ctx.thread_idx.z = cursor_z_;
    ctx.block_idx.x = cursor_block_.x;
    ctx.block_idx.y = cursor_block_.y;
    ctx.block_idx.z = cursor_block_.z;
    ctx.shared = cursor_shared_;
    self.block = cursor_barrier_;
    const unsigned linear = cursor_x_ + block_x_ * (cursor_y_ + block_y_ * cursor_z_);
    self.warp = &warps_[cursor_index_ * warps_per_block_ + linear / 32];
    self.lane = linear % 32;
    // Advance the cursor, x fastest, then to the next block of the batch.
    if (++cursor_x_ < block_x_) return true;
    cursor_x_ = 0;
    if (++cursor_y_ < block_y_) return true;
    cursor_y_ = 0;
    if (++cursor_z_ < block_z_) return true;
    cursor_z_ = 0;
    if (++cursor_index_ == batch_blocks_) {
      unstarted_ = false;
    } else {
      point_cursor_at_block(cursor_index_);
    }
    return true;
  }

  void run_thread(slot& self) noexcept {
    *current_ = &self.ctx;
    // Every thread starts with the floating-point control state of the OS
    // thread running the batch, whatever the fiber's last thread left.
    if (read_fp_control() != batch_fp_) [[unlikely]] write_fp_control(batch_fp_);
    launch_state& st = *launch_;
    // Nothing may unwind past here: above this frame is the fiber's start.
    try {
      st.fn(&self.ctx, params_);
    } catch (const cpu::thread_exit&) {
      // The thread ended early, having reported why: the launch goes on.
    } catch (const std::exception& e) {
      st.record(e.what(), self.ctx.block_idx, self.ctx.thread_idx);
    } catch (...) {
      st.record("unknown exception", self.ctx.block_idx, self.ctx.thread_idx);
    }
  }

  static void release(barrier_state& b) noexcept {
    b.arrived = 0;
    ++b.generation;
  }

  // A lane outside the mask it passes is undefined on a GPU: here it meets
  // as if it were in it.
  static std::uint32_t member_mask(const slot& self, std::uint32_t mask) noexcept {
    return mask | (std::uint32_t{1} << self.lane);
  }

  /// The open meeting of `w` for `mask`, or a free one opened for it. A
  /// meeting releases (and is free again) once every lane of its mask has
  /// arrived or exited; lanes passing different masks never meet, so
  /// disjoint groups of a warp meet independently.
  static barrier_state& meeting(warp_state& w, std::uint32_t mask) noexcept {
    std::uint32_t open = 0;
    for (std::uint32_t k = w.open; k != 0; k &= k - 1) {
      const unsigned i = static_cast<unsigned>(std::countr_zero(k));
      warp_meeting& m = w.meetings[i];
      if (m.barrier.arrived == 0) continue;  // released, or left by an aborted lane
      if (m.mask == mask) return m.barrier;
      open |= std::uint32_t{1} << i;
    }
    // At most 31 are open: each holds a waiting lane, and the caller is not waiting.
    const unsigned i = static_cast<unsigned>(std::countr_zero(~open));
    w.open = open | (std::uint32_t{1} << i);
    warp_meeting& m = w.meetings[i];
    m.mask = mask;
    // Its generation carries on: fibers still suspended at its last release
    // tell it by the generation alone.
    m.barrier.live = static_cast<unsigned long long>(std::popcount(mask & w.live));
    return m.barrier;
  }

  // An exited thread counts as arrived at every barrier from now on.
  static void leave(barrier_state& b) noexcept {
    --b.live;
    if (b.arrived != 0 && b.arrived == b.live) release(b);
  }

  void thread_exited(slot& self) noexcept {
    warp_state& w = *self.warp;
    const std::uint32_t bit = std::uint32_t{1} << self.lane;
    w.live &= ~bit;
    for (std::uint32_t k = w.open; k != 0; k &= k - 1) {
      warp_meeting& m = w.meetings[std::countr_zero(k)];
      if (m.barrier.arrived != 0 && (m.mask & bit) != 0) leave(m.barrier);
    }
    leave(*self.block);
    if (cooperative_) leave(grid_);
  }

  void arrive(slot& self, barrier_state& b) {
    self.waiting_at = &b;
    if (++b.arrived == b.live) {
      release(b);
      if (queued_ == 0) return;
      // The last to arrive goes behind those that arrived before it, so that
      // every phase runs its threads in the same order (thread order, within
      // a block): races in a kernel then show up the same way on every run.
      self.wait_generation = b.generation - 1;
      push_back(self);
      slot* next = pop_runnable();  // finds self at the latest
      if (next != &self) suspend(self, *next);
      return;
    }
    self.wait_generation = b.generation;
    slot* next = nullptr;
    try {
      next = unstarted_ ? acquire() : pop_runnable();
    } catch (...) {
      --b.arrived;  // no fiber for the next thread: this one fails instead
      throw;
    }
    if (next == nullptr) {
      --b.arrived;
      throw_deadlock();
    }
    push_back(self);
    suspend(self, *next);
  }

  /// Runs `next` until something resumes `self` (queued already).
  void suspend(slot& self, slot& next) {
    switch_context(self.fib.context(), next.fib.context());
    *current_ = &self.ctx;
    if (self.aborted) [[unlikely]] {
      self.aborted = false;
      --self.waiting_at->arrived;
      throw_deadlock();
    }
  }

  /// Takes the oldest suspended fiber whose barrier has released, if any.
  slot* pop_runnable() noexcept {
    for (std::size_t n = queued_; n != 0; --n) {
      slot* s = pop_front();
      if (s->waiting_at->generation != s->wait_generation) return s;
      push_back(*s);
    }
    return nullptr;
  }

  /// The running fiber has no thread left to run: it goes idle and hands on
  /// to a suspended fiber, or back to the OS thread when the batch is done.
  void park(slot& self) noexcept {
    self.link = pool_->idle;
    pool_->idle = &self;
    slot* next = pop_runnable();
    if (next == nullptr && queued_ != 0) {
      // Everyone left waits at a barrier that cannot complete: fail one of
      // them, whose exit may release the others (or lead to the next).
      next = pop_front();
      next->aborted = true;
    }
    switch_context(self.fib.context(), next != nullptr ? next->fib.context() : native_);
  }

  slot* acquire() {
    if (slot* s = pool_->idle) {
      pool_->idle = s->link;
      return s;
    }
    // Stagger the stack tops so that the hot frames of the fibers of a block
    // do not all compete for the same cache sets (measured: a barrier in a
    // 1024-thread block costs 17-22 ns a thread with this, 30-48 ns without).
    std::size_t colour = (pool_->all.size() % 16) * 1088;
    pool_->all.reserve(pool_->all.size() + 1);
    pool_->all.push_back(std::make_unique<slot>(*this, pool_->stack_bytes, colour));
    return pool_->all.back().get();
  }

  static void trim(fiber_pool& pool, std::size_t keep) {
    if (pool.all.size() <= keep) return;
    pool.all.resize(keep);
    pool.idle = nullptr;
    for (auto& s : pool.all) {
      s->link = pool.idle;
      pool.idle = s.get();
    }
  }

  void push_back(slot& s) noexcept {
    s.link = nullptr;
    if (tail_ != nullptr) {
      tail_->link = &s;
    } else {
      head_ = &s;
    }
    tail_ = &s;
    ++queued_;
  }

  slot* pop_front() noexcept {
    slot* s = head_;
    head_ = s->link;
    if (head_ == nullptr) tail_ = nullptr;
    --queued_;
    return s;
  }

  cpu::thread_context** current_ = &tls_current;  ///< the owning OS thread's tls_current
  void** params_ = nullptr;  ///< the launch's parameters as this thread's kernel threads see them
  std::uint64_t private_mask_ = 0;  ///< thread_context::private_sums for them
  private_copies copies_;    ///< this thread's copies of the launch's private sums
  fiber_context native_;
  fiber_pool block_pool_;
  fiber_pool cooperative_pool_;
  shared_buffer shared_;

  // The batch running now.
  launch_state* launch_ = nullptr;
  unsigned long long launch_serial_ = 0;  ///< counts the launches this thread has worked on
  fiber_pool* pool_ = nullptr;
  std::vector<barrier_state> barriers_;  ///< one per block of the batch
  std::vector<warp_state> warps_;        ///< warps_per_block_ per block of the batch
  unsigned long long warps_per_block_ = 1;
  barrier_state grid_;
  bool cooperative_ = false;
  fp_control batch_fp_;  ///< what each thread of the batch starts with
  unsigned long long batch_first_ = 0;
  unsigned long long batch_blocks_ = 0;
  char* batch_shared_ = nullptr;
  std::size_t shared_stride_ = 0;

  // The next unstarted thread of the batch.
  bool unstarted_ = false;
  unsigned long long cursor_index_ = 0;  ///< its block, within the batch
  unsigned cursor_x_ = 0, cursor_y_ = 0, cursor_z_ = 0;
  unsigned block_x_ = 1, block_y_ = 1, block_z_ = 1;
  cpu::uint3 cursor_block_;
  barrier_state* cursor_barrier_ = nullptr;
  char* cursor_shared_ = nullptr;

  // Suspended fibers, oldest first.
  slot* head_ = nullptr;
  slot* tail_ = nullptr;
  std::size_t queued_ = 0;
};

slot::slot(scheduler& s, std::size_t stack_bytes, std::size_t colour)
    : exec_tag{exec_kind::fiber}, sched(&s), fib(stack_bytes, &scheduler::fiber_main, this, colour) {}

scheduler& local_scheduler() {
  thread_local scheduler s;
  return s;
}

// ---------------------------------------------------------------------------
// The pool of worker threads.

/// Worker threads that help run launches. The thread calling run() works on
/// its own launch too, so the pool has one thread fewer than worker_count().
class worker_pool {
 public:
  explicit worker_pool(unsigned threads) {
    for (unsigned i = 0; i < threads; ++i) {
      try {
        std::thread([this] { work(); }).detach();
        ++threads_;
      } catch (const std::exception&) {
        break;  // fewer helpers; run() still finishes on its own thread
      }
    }
  }

  void run(launch_state& st) {
    unsigned long long claims = (st.total_blocks + st.chunk - 1) / st.chunk;
    unsigned long long helpers = std::min<unsigned long long>(threads_, claims - 1);
    {
      std::lock_guard lock(mutex_);
      st.queued = true;
      st.prev = tail_;
      (tail_ != nullptr ? tail_->next : head_) = &st;
      tail_ = &st;
    }
    if (helpers == threads_) {
      work_cv_.notify_all();
    } else {
      for (unsigned long long i = 0; i < helpers; ++i) work_cv_.notify_one();
    }
    local_scheduler().run_claims(st);
    std::unique_lock lock(mutex_);
    unlink(st);
    // `st` lives on our stack: wait until no helper can touch it again.
    done_cv_.wait(lock, [&] { return st.workers_in == 0; });
  }

 private:
  void work() {
    scheduler& sched = local_scheduler();
    std::unique_lock lock(mutex_);
    for (;;) {
      work_cv_.wait(lock, [this] { return head_ != nullptr; });
      launch_state& st = *head_;
      ++st.workers_in;
      lock.unlock();
      sched.run_claims(st);
      lock.lock();
      unlink(st);
      if (--st.workers_in == 0) done_cv_.notify_all();
    }
  }

  // Takes an exhausted launch off the queue so idle workers stop finding it.
  void unlink(launch_state& st) noexcept {
    if (!st.queued) return;
    (st.prev != nullptr ? st.prev->next : head_) = st.next;
    (st.next != nullptr ? st.next->prev : tail_) = st.prev;
    st.queued = false;
  }

  std::mutex mutex_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  launch_state* head_ = nullptr;
  launch_state* tail_ = nullptr;
  unsigned threads_ = 0;
};

worker_pool& pool() {
  // Leaked on purpose, and its threads detached: they never exit, and may be
  // waiting on its mutex while static destructors run at process exit.
  static worker_pool* p = new worker_pool(worker_count() - 1);
  return *p;
}

/// Blocks per claim: enough threads to amortise the shared counter, enough
/// claims per participant to even out blocks of unequal cost. A kernel whose
/// blocks run in one call (a vectorised loop: a thread costs well under a
/// nanosecond) claims 32 times as many, so that each participant walks
/// memory in long runs the hardware prefetchers follow (they stop at 4 KiB
/// pages): claims of 2048 threads interleaved the two cores of this machine
/// every 8 KiB of a float32 array and held SAXPY to one core's bandwidth.
unsigned long long chunk_for(const launch_state& st, unsigned participants) {
  const unsigned long long threads_per_claim = st.block_fn != nullptr ? 65536 : 2048;
  constexpr unsigned long long claims_per_participant = 8;
  unsigned long long by_size = (threads_per_claim + st.threads_per_block - 1) / st.threads_per_block;
  unsigned long long by_balance = st.total_blocks / (participants * claims_per_participant);
  return std::max<unsigned long long>(1, std::min(by_size, by_balance));
}

}  // namespace

void run(const grid_launch& launch) {
  if (launch.fn == nullptr) {
    detail::raise(CUDA_ERROR_INVALID_VALUE, "the kernel function is null", "kernel launch");
  }
  if (launch.grid.count() == 0 || launch.block.count() == 0) {
    detail::raise(CUDA_ERROR_INVALID_VALUE,
                  "grid and block dimensions must all be at least 1 (grid " +
                      describe(to_uint3(launch.grid)) + ", block " + describe(to_uint3(launch.block)) + ")",
                  "kernel launch");
  }
  if (tls_current != nullptr) {
    detail::raise(CUDA_ERROR_NOT_SUPPORTED, "a cpu-backend kernel cannot launch another kernel",
                  "kernel launch");
  }

  launch_state st(launch);
  if (launch.cooperative) {
    unsigned long long most = max_cooperative_threads();
    if (st.total_blocks > most / st.threads_per_block) {
      detail::raise(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
                    "a cooperative launch on the cpu backend may have at most " + std::to_string(most) +
                        " threads in all (grid " + describe(st.grid) + " of blocks " + describe(st.block) + ")",
                    "kernel launch");
    }
    try {
      local_scheduler().run_cooperative(st);
    } catch (const std::bad_alloc&) {
      detail::raise(CUDA_ERROR_OUT_OF_MEMORY, "no memory for the blocks of a cooperative launch",
                    "kernel launch");
    }
  } else {
    unsigned participants = worker_count();
    st.chunk = chunk_for(st, participants);
    if (launch.arrays != nullptr && !launch.arrays->empty()) {
      st.param_count = launch.param_count;
      st.sums = plan_private_sums(*launch.arrays, launch.params, launch.param_count,
                                  st.total_blocks * st.threads_per_block);
    }
    if (participants == 1 || st.total_blocks <= st.chunk) {
      local_scheduler().run_claims(st);
    } else {
      pool().run(st);
    }
  }

  if (st.failed.load(std::memory_order_acquire)) {
    std::string where;
    if (st.error_thread.x == cpu::row_of_blocks_thread && st.error_run > 1) {
      cpu::uint3 last = st.error_block;
      last.x += st.error_run - 1;
      where = "blocks " + describe(st.error_block) + " to " + describe(last) +
              ", one of their threads: they ran as one loop";
    } else {
      where = "block " + describe(st.error_block) + ", " +
              (st.error_thread.x == unknown_thread.x || st.error_thread.x == cpu::row_of_blocks_thread
                   ? std::string("one of its threads: they ran as one loop")
                   : "thread " + describe(st.error_thread));
    }
    detail::raise(CUDA_ERROR_LAUNCH_FAILED, st.error + " (" + where + ")", "kernel launch");
  }
}

unsigned worker_count() { return config().workers; }

unsigned long long max_cooperative_threads() { return config().max_cooperative_threads; }

}  // namespace cuforge::detail::cpu_exec

namespace cuforge::cpu {

CUFORGE_API thread_context* current() noexcept { return ::cuforge::detail::cpu_exec::tls_current; }

}  // namespace cuforge::cpu

extern "C" {

CUFORGE_API void cuforge_cpu_syncthreads(cuforge::cpu::thread_context* ctx) {
  using namespace cuforge::detail::cpu_exec;
  auto* tag = ctx != nullptr ? static_cast<exec_tag*>(ctx->scheduler) : nullptr;
  if (tag == nullptr) throw cuforge::logic_error("__syncthreads called outside a cpu-backend kernel");
  switch (tag->kind) {
    case exec_kind::fiber: {
      auto& self = static_cast<slot&>(*tag);
      self.sched->block_barrier(self);
      return;
    }
    case exec_kind::loop_single_thread:
      return;
    case exec_kind::loop_without_barrier:
      break;
  }
  throw cuforge::logic_error(
      "__syncthreads called by a kernel declared without barriers (uses_barrier = false): its "
      "threads run one after another and cannot wait for each other");
}

namespace {

// The fiber running `ctx`'s thread, or nullptr for a block of one thread run
// as a loop (a warp of one lane); throws where no warp exists.
cuforge::detail::cpu_exec::slot* warp_member(cuforge::cpu::thread_context* ctx, const char* what) {
  using namespace cuforge::detail::cpu_exec;
  auto* tag = ctx != nullptr ? static_cast<exec_tag*>(ctx->scheduler) : nullptr;
  if (tag == nullptr) throw cuforge::logic_error(std::string(what) + " called outside a cpu-backend kernel");
  switch (tag->kind) {
    case exec_kind::fiber: return static_cast<slot*>(tag);
    case exec_kind::loop_single_thread: return nullptr;
    case exec_kind::loop_without_barrier: break;
  }
  throw cuforge::logic_error(std::string(what) +
                             " called by a kernel declared without barriers (uses_barrier = false): its threads "
                             "run one after another and cannot meet as a warp");
}

}  // namespace

CUFORGE_API void cuforge_cpu_syncwarp(cuforge::cpu::thread_context* ctx, std::uint32_t mask) {
  if (auto* s = warp_member(ctx, "__syncwarp")) s->sched->warp_barrier(*s, mask);
}

CUFORGE_API std::uint64_t cuforge_cpu_warp_shuffle(cuforge::cpu::thread_context* ctx, std::uint32_t mask,
                                                   std::uint64_t value, std::int32_t src) {
  auto* s = warp_member(ctx, "a warp shuffle");
  if (s == nullptr) return value;
  return s->sched->warp_exchange(*s, mask, value,
                                 [&](const cuforge::detail::cpu_exec::warp_state& w, std::uint32_t members) {
                                   const bool there = src >= 0 && src < 32 && ((members >> src) & 1u) != 0;
                                   return there ? w.offered[src] : value;
                                 });
}

CUFORGE_API std::uint64_t cuforge_cpu_warp_vote(cuforge::cpu::thread_context* ctx, std::uint32_t mask,
                                                std::int32_t pred) {
  auto* s = warp_member(ctx, "a warp vote");
  if (s == nullptr) return (std::uint64_t{1} << 32) | (pred != 0 ? 1u : 0u);
  return s->sched->warp_exchange(*s, mask, pred != 0 ? 1 : 0,
                                 [](const cuforge::detail::cpu_exec::warp_state& w, std::uint32_t members) {
                                   std::uint64_t ballot = 0;
                                   for (unsigned i = 0; i < 32; ++i)
                                     if (((members >> i) & 1u) != 0 && w.offered[i] != 0) ballot |= std::uint64_t{1} << i;
                                   return ballot | (std::uint64_t{members} << 32);
                                 });
}

CUFORGE_API std::uint64_t cuforge_cpu_warp_match(cuforge::cpu::thread_context* ctx, std::uint32_t mask,
                                                 std::uint64_t value) {
  auto* s = warp_member(ctx, "a warp match");
  if (s == nullptr) return (std::uint64_t{1} << 32) | 1u;
  return s->sched->warp_exchange(
      *s, mask, value, [&](const cuforge::detail::cpu_exec::warp_state& w, std::uint32_t members) {
        std::uint64_t same = 0;
        for (unsigned i = 0; i < 32; ++i)
          if (((members >> i) & 1u) != 0 && w.offered[i] == value) same |= std::uint64_t{1} << i;
        return same | (std::uint64_t{members} << 32);
      });
}

CUFORGE_API std::uint32_t cuforge_cpu_warp_active(cuforge::cpu::thread_context* ctx) {
  auto* s = warp_member(ctx, "activemask");
  return s == nullptr ? 1u : s->warp->live;
}

CUFORGE_API void cuforge_cpu_grid_sync(cuforge::cpu::thread_context* ctx) {
  using namespace cuforge::detail::cpu_exec;
  auto* tag = ctx != nullptr ? static_cast<exec_tag*>(ctx->scheduler) : nullptr;
  if (tag == nullptr) throw cuforge::logic_error("grid sync called outside a cpu-backend kernel");
  if (tag->kind == exec_kind::fiber) {
    auto& self = static_cast<slot&>(*tag);
    self.sched->grid_barrier(self);
    return;
  }
  throw cuforge::logic_error(
      "grid sync outside a cooperative launch: launch the kernel as cooperative to use a "
      "grid-wide barrier");
}

}  // extern "C"
