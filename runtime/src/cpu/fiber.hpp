#pragma once

/// @file
/// Fibers for the cpu backend: execution contexts with their own stacks,
/// switched cooperatively in user space. On x86-64 and AArch64 a switch is a
/// few dozen instructions of hand-written assembly (fiber_switch_*.S) that
/// save the callee-saved registers on the old stack and restore them from the
/// new one: no system call, no signal mask, no allocation. Other
/// architectures fall back to ucontext (correct, but a syscall per switch).
///
/// A fiber never migrates: it is created, run and destroyed by one OS thread,
/// so thread_local data stays valid across switches.

#include <cstddef>
#include <cstdint>

// CUFORGE_FIBER_UCONTEXT forces the fallback, to test it on x86-64.
#if (defined(__x86_64__) || defined(__aarch64__)) && !defined(CUFORGE_FIBER_UCONTEXT)
#define CUFORGE_FIBER_ASM 1
#else
#define CUFORGE_FIBER_ASM 0
#include <ucontext.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define CUFORGE_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CUFORGE_FIBER_ASAN 1
#endif
#endif
#ifndef CUFORGE_FIBER_ASAN
#define CUFORGE_FIBER_ASAN 0
#endif

#if CUFORGE_FIBER_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

#if !defined(__x86_64__) && !defined(__aarch64__)
#include <cfenv>
#endif

#if CUFORGE_FIBER_ASM
extern "C" {
/// Saves the running context's registers on its stack, stores its stack
/// pointer in *save_sp, and resumes the context whose stack pointer is
/// load_sp. Returns when something switches back to *save_sp.
void cuforge_fiber_switch(void** save_sp, void* load_sp) noexcept;
}
#endif

namespace cuforge::detail::cpu_exec {

/// @brief The floating-point control state a switch keeps per fiber: MXCSR
/// and the x87 control word on x86-64, FPCR on AArch64, the rounding mode
/// elsewhere.
struct fp_control {
  std::uint64_t bits = 0;
  friend bool operator==(fp_control, fp_control) = default;
};

inline fp_control read_fp_control() noexcept {
#if defined(__x86_64__)
  std::uint32_t mxcsr = 0;
  std::uint16_t cw = 0;
  asm volatile("stmxcsr %0" : "=m"(mxcsr));
  asm volatile("fnstcw %0" : "=m"(cw));
  return {mxcsr | (std::uint64_t{cw} << 32)};
#elif defined(__aarch64__)
  std::uint64_t fpcr = 0;
  asm volatile("mrs %0, fpcr" : "=r"(fpcr));
  return {fpcr};
#else
  return {static_cast<std::uint64_t>(std::fegetround())};
#endif
}

inline void write_fp_control(fp_control c) noexcept {
#if defined(__x86_64__)
  auto mxcsr = static_cast<std::uint32_t>(c.bits);
  auto cw = static_cast<std::uint16_t>(c.bits >> 32);
  asm volatile("ldmxcsr %0" : : "m"(mxcsr));
  asm volatile("fldcw %0" : : "m"(cw));
#elif defined(__aarch64__)
  asm volatile("msr fpcr, %0" : : "r"(c.bits));
#else
  std::fesetround(static_cast<int>(c.bits));
#endif
}

/// @brief A suspended (or running) execution context. A default-constructed
/// one stands for the OS thread's own stack: switching away from it saves
/// the thread's state there, so it can be switched back to.
class fiber_context {
 public:
  fiber_context() noexcept;
  fiber_context(const fiber_context&) = delete;
  fiber_context& operator=(const fiber_context&) = delete;

 private:
  friend class fiber;
  friend void switch_context(fiber_context& from, fiber_context& to) noexcept;

#if CUFORGE_FIBER_ASM
  void* sp_ = nullptr;
#else
  ucontext_t uc_;
#endif
#if CUFORGE_FIBER_ASAN
  // ASan must be told which stack it is on, and keeps a fake stack per
  // context for use-after-return detection.
  const void* stack_bottom_ = nullptr;
  std::size_t stack_size_ = 0;
  void* fake_stack_ = nullptr;
#endif
};

/// @brief A fiber: a stack (mmap'ed, with an inaccessible guard page below
/// it so that an overflow faults instead of corrupting a neighbour) and the
/// context that runs `entry(arg)` on it when first switched to.
///
/// `entry` must never return: a fiber that has nothing left to do switches
/// away and is simply never resumed (or is destroyed while suspended, which
/// is fine: nothing on its stack needs unwinding). It must not let an
/// exception escape either: there is nothing above it to unwind into.
class fiber {
 public:
  using entry_fn = void (*)(void* arg);

  /// @param stack_bytes usable stack, rounded up to whole pages
  /// @param colour extra bytes left unused above the stack's first frame, so
  ///        that the hot frames of many fibers do not all map to the same
  ///        cache sets (rounded down to 16)
  /// @throws out_of_memory when the stack cannot be mapped
  fiber(std::size_t stack_bytes, entry_fn entry, void* arg, std::size_t colour = 0);
  ~fiber();
  fiber(const fiber&) = delete;
  fiber& operator=(const fiber&) = delete;

  fiber_context& context() noexcept { return context_; }

  /// Whether `address` lies in the guard page below the stack (a fault there
  /// is a stack overflow).
  bool guards(const void* address) const noexcept;

 private:
  static void start(void* self);

  void* mapping_ = nullptr;
  std::size_t mapping_bytes_ = 0;
  entry_fn entry_;
  void* arg_;
  unsigned valgrind_id_ = 0;  ///< the stack's registration, when built with valgrind's header
  fiber_context context_;
};

/// @brief Suspends the running context into `from` and resumes `to`.
/// `from` must be the context that is running now.
#if CUFORGE_FIBER_ASM
inline void switch_context(fiber_context& from, fiber_context& to) noexcept {
#if CUFORGE_FIBER_ASAN
  __sanitizer_start_switch_fiber(&from.fake_stack_, to.stack_bottom_, to.stack_size_);
#endif
  cuforge_fiber_switch(&from.sp_, to.sp_);
#if CUFORGE_FIBER_ASAN
  __sanitizer_finish_switch_fiber(from.fake_stack_, nullptr, nullptr);
#endif
}
#else
void switch_context(fiber_context& from, fiber_context& to) noexcept;
#endif

}  // namespace cuforge::detail::cpu_exec
