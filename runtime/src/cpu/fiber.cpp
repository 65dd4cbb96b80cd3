#include "cpu/fiber.hpp"

#include <cuforge/runtime/error.hpp>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#if CUFORGE_FIBER_ASAN
#include <sanitizer/asan_interface.h>
#endif

// Valgrind takes a switch of stack pointer into an unregistered stack for a
// huge stack frame, reports every access as invalid and can crash. Its
// client requests cost a few instructions, and only when a fiber is made.
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define CUFORGE_FIBER_VALGRIND 1
#else
#define CUFORGE_FIBER_VALGRIND 0
#endif

#if CUFORGE_FIBER_ASM
extern "C" void cuforge_fiber_trampoline() noexcept;
#endif

namespace cuforge::detail::cpu_exec {

namespace {

std::size_t page_size() noexcept {
  static const std::size_t size = [] {
    long p = ::sysconf(_SC_PAGESIZE);
    return p > 0 ? static_cast<std::size_t>(p) : std::size_t{4096};
  }();
  return size;
}

// Linux 6.13+ can install a guard page without changing the mapping's
// protection, so it does not split the mapping: thousands of fiber stacks
// then cost a handful of kernel VMAs instead of two each, which keeps us far
// from vm.max_map_count (65530 by default). Older kernels say EINVAL and get
// an mprotect'ed guard page instead.
constexpr int madv_guard_install = 102;

bool install_guard(void* page, std::size_t bytes) noexcept {
#if defined(__linux__)
  static std::atomic<bool> madvise_guard_works{true};
  if (madvise_guard_works.load(std::memory_order_relaxed)) {
    if (::madvise(page, bytes, madv_guard_install) == 0) return true;
    if (errno == EINVAL) madvise_guard_works.store(false, std::memory_order_relaxed);
  }
#endif
  return ::mprotect(page, bytes, PROT_NONE) == 0;
}

[[noreturn]] void throw_no_stack(std::size_t bytes, int error) {
  std::string detail = std::strerror(error);
  if (error == ENOMEM) {
    detail += "; each fiber stack is a mapping, so vm.max_map_count or the address space may be "
              "exhausted (see CUFORGE_CPU_STACK_KB)";
  }
  throw out_of_memory(bytes, "fiber stack", detail);
}

}  // namespace

#if CUFORGE_FIBER_ASAN
fiber_context::fiber_context() noexcept {
  // The thread's own stack: ASan needs its bounds when we switch back to it.
  pthread_attr_t attr;
  if (::pthread_getattr_np(::pthread_self(), &attr) == 0) {
    void* addr = nullptr;
    std::size_t size = 0;
    if (::pthread_attr_getstack(&attr, &addr, &size) == 0) {
      stack_bottom_ = addr;
      stack_size_ = size;
    }
    ::pthread_attr_destroy(&attr);
  }
}
#else
fiber_context::fiber_context() noexcept = default;
#endif

fiber::fiber(std::size_t stack_bytes, entry_fn entry, void* arg, std::size_t colour)
    : entry_(entry), arg_(arg) {
  const std::size_t page = page_size();
  stack_bytes = (stack_bytes + page - 1) / page * page;
  colour &= ~std::size_t{15};
  const std::size_t colour_pages = (colour + page - 1) / page * page;
  mapping_bytes_ = page + stack_bytes + colour_pages;
  // MAP_NORESERVE: only the pages a kernel touches are ever committed, so a
  // 256 KiB stack of which a thread uses 2 KiB costs one page.
  void* m = ::mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (m == MAP_FAILED) throw_no_stack(mapping_bytes_, errno);
  if (!install_guard(m, page)) {
    int error = errno;
    ::munmap(m, mapping_bytes_);
    throw_no_stack(mapping_bytes_, error);
  }
  mapping_ = m;

  // The colour comes on top of the usable stack, so every fiber has at least
  // stack_bytes below its first frame.
  char* bottom = static_cast<char*>(m) + page;
  auto top = reinterpret_cast<std::uintptr_t>(bottom + stack_bytes + colour_pages - colour);

#if CUFORGE_FIBER_VALGRIND
  valgrind_id_ = VALGRIND_STACK_REGISTER(bottom, bottom + stack_bytes + colour_pages);
#endif
#if CUFORGE_FIBER_ASAN
  context_.stack_bottom_ = bottom;
  context_.stack_size_ = stack_bytes + colour_pages;
#endif

#if CUFORGE_FIBER_ASM
  // The first switch to this fiber "returns" into cuforge_fiber_trampoline
  // with the registers below, which calls start(this): the frame
  // cuforge_fiber_switch pops, laid out as it pushes it.
  auto* frame = reinterpret_cast<std::uint64_t*>(top);
#if defined(__x86_64__)
  // [mxcsr|x87 cw] r15 r14 r13 r12 rbx rbp ret | top (16-aligned)
  frame -= 8;
  frame[0] = read_fp_control().bits;  // mxcsr, then the x87 control word
  frame[1] = 0;                                            // r15
  frame[2] = 0;                                            // r14
  frame[3] = reinterpret_cast<std::uint64_t>(&fiber::start);  // r13: what to call
  frame[4] = reinterpret_cast<std::uint64_t>(this);           // r12: its argument
  frame[5] = 0;                                            // rbx
  frame[6] = 0;                                            // rbp: ends frame-pointer walks
  frame[7] = reinterpret_cast<std::uint64_t>(&cuforge_fiber_trampoline);
#else  // __aarch64__
  // x19..x28, x29 (fp), x30 (lr), d8..d15, fpcr, padding: 22 slots
  frame -= 22;
  for (int i = 0; i < 22; ++i) frame[i] = 0;
  frame[0] = reinterpret_cast<std::uint64_t>(this);            // x19: argument
  frame[1] = reinterpret_cast<std::uint64_t>(&fiber::start);   // x20: what to call
  frame[11] = reinterpret_cast<std::uint64_t>(&cuforge_fiber_trampoline);  // x30
  frame[20] = read_fp_control().bits;
#endif
  context_.sp_ = frame;
#else
  ::getcontext(&context_.uc_);
  context_.uc_.uc_stack.ss_sp = bottom;
  context_.uc_.uc_stack.ss_size = top - reinterpret_cast<std::uintptr_t>(bottom);
  context_.uc_.uc_link = nullptr;
  // makecontext passes int arguments only: the pointer travels in halves.
  auto self = reinterpret_cast<std::uintptr_t>(this);
  using start_fn = void (*)(unsigned, unsigned);
  start_fn halves = [](unsigned hi, unsigned lo) {
    fiber::start(reinterpret_cast<void*>((std::uintptr_t{hi} << 32) | lo));
  };
  ::makecontext(&context_.uc_, reinterpret_cast<void (*)()>(halves), 2,
                static_cast<unsigned>(static_cast<std::uint64_t>(self) >> 32),
                static_cast<unsigned>(self & 0xffffffffu));
#endif
}

fiber::~fiber() {
  if (mapping_ == nullptr) return;
#if CUFORGE_FIBER_VALGRIND
  VALGRIND_STACK_DEREGISTER(valgrind_id_);
#endif
#if CUFORGE_FIBER_ASAN
  // Frames left poisoned on a suspended stack must not outlive the mapping.
  ASAN_UNPOISON_MEMORY_REGION(mapping_, mapping_bytes_);
#endif
  ::munmap(mapping_, mapping_bytes_);
}

void fiber::start(void* self) {
#if CUFORGE_FIBER_ASAN
  __sanitizer_finish_switch_fiber(nullptr, nullptr, nullptr);
#endif
  auto* f = static_cast<fiber*>(self);
  f->entry_(f->arg_);
  // entry_ must switch away for good; returning would run off the stack.
  std::abort();
}

#if !CUFORGE_FIBER_ASM
void switch_context(fiber_context& from, fiber_context& to) noexcept {
#if CUFORGE_FIBER_ASAN
  __sanitizer_start_switch_fiber(&from.fake_stack_, to.stack_bottom_, to.stack_size_);
#endif
  ::swapcontext(&from.uc_, &to.uc_);
#if CUFORGE_FIBER_ASAN
  __sanitizer_finish_switch_fiber(from.fake_stack_, nullptr, nullptr);
#endif
}
#endif

bool fiber::guards(const void* address) const noexcept {
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  const auto base = reinterpret_cast<std::uintptr_t>(mapping_);
  return mapping_ != nullptr && a >= base && a < base + page_size();
}

}  // namespace cuforge::detail::cpu_exec
