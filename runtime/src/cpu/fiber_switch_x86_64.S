// Fiber context switch for x86-64 (System V ABI). See fiber.hpp.
//
// void cuforge_fiber_switch(void** save_sp /* rdi */, void* load_sp /* rsi */)
//
// Pushes what the ABI says a callee must preserve (rbp, rbx, r12-r15, and
// the control bits of MXCSR and the x87 control word, so that a kernel
// thread that changes its rounding mode does not change its neighbours'),
// stores rsp in *save_sp, switches to load_sp and pops the same frame from
// there. The frame, from the saved rsp up:
//
//   0: mxcsr (4 bytes), x87 control word (2 bytes), padding
//   8: r15  16: r14  24: r13  32: r12  40: rbx  48: rbp  56: return address
//
// fiber.cpp builds the same frame for a new fiber, with the return address
// pointing at cuforge_fiber_trampoline, r13 = the function to call and
// r12 = its argument.

#if defined(__x86_64__)

        .text
        .p2align 4
        .globl  cuforge_fiber_switch
        .hidden cuforge_fiber_switch
        .type   cuforge_fiber_switch, @function
cuforge_fiber_switch:
        .cfi_startproc
        pushq   %rbp
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset rbp, 0
        pushq   %rbx
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset rbx, 0
        pushq   %r12
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset r12, 0
        pushq   %r13
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset r13, 0
        pushq   %r14
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset r14, 0
        pushq   %r15
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset r15, 0
        subq    $8, %rsp
        .cfi_adjust_cfa_offset 8
        stmxcsr (%rsp)
        fnstcw  4(%rsp)

        // The frame on the new stack has the same shape, so the unwind
        // information above stays true after the switch.
        movq    %rsp, (%rdi)
        movq    %rsi, %rsp

        ldmxcsr (%rsp)
        fldcw   4(%rsp)
        addq    $8, %rsp
        .cfi_adjust_cfa_offset -8
        popq    %r15
        .cfi_adjust_cfa_offset -8
        .cfi_restore r15
        popq    %r14
        .cfi_adjust_cfa_offset -8
        .cfi_restore r14
        popq    %r13
        .cfi_adjust_cfa_offset -8
        .cfi_restore r13
        popq    %r12
        .cfi_adjust_cfa_offset -8
        .cfi_restore r12
        popq    %rbx
        .cfi_adjust_cfa_offset -8
        .cfi_restore rbx
        popq    %rbp
        .cfi_adjust_cfa_offset -8
        .cfi_restore rbp
        // A plain ret, not pop + jmp: the scheduler's fibers are all
        // suspended at the same call sites, so the return-stack predictor's
        // guesses stay right for this ret and every ret after it. (pop + jmp
        // halves a ping-pong microbenchmark between two different call sites
        // but doubles the cost of a barrier in the engine, as every later
        // ret then mispredicts.)
        ret
        .cfi_endproc
        .size   cuforge_fiber_switch, .-cuforge_fiber_switch

// The first code a new fiber runs, entered by the ret above with rsp
// 16-byte aligned: calls r13(r12), which never returns. Marks the return
// address undefined so unwinders and debuggers stop here instead of walking
// into whatever lies above the fiber's stack.
        .p2align 4
        .globl  cuforge_fiber_trampoline
        .hidden cuforge_fiber_trampoline
        .type   cuforge_fiber_trampoline, @function
cuforge_fiber_trampoline:
        .cfi_startproc
        .cfi_undefined rip
        movq    %r12, %rdi
        callq   *%r13
        ud2
        .cfi_endproc
        .size   cuforge_fiber_trampoline, .-cuforge_fiber_trampoline

#endif

#if defined(__aarch64__) || defined(__arm__)
        .section .note.GNU-stack,"",%progbits
#else
        .section .note.GNU-stack,"",@progbits
#endif
