// Fiber context switch for AArch64 (AAPCS64). See fiber.hpp.
//
// void cuforge_fiber_switch(void** save_sp /* x0 */, void* load_sp /* x1 */)
//
// Saves what the ABI says a callee must preserve (x19-x28, the frame
// pointer x29, the link register x30 and the low halves of v8-v15, d8-d15)
// and the floating-point control register FPCR (as the x86-64 switch keeps
// MXCSR and the x87 control word: a kernel thread that changes its rounding
// mode must not change its neighbours') in a 176-byte frame below sp, stores
// sp in *save_sp, switches to load_sp and restores the same frame from
// there. The frame, from the saved sp up:
//
//   0: x19 x20  16: x21 x22  32: x23 x24  48: x25 x26  64: x27 x28
//  80: x29 x30  96: d8 d9  112: d10 d11  128: d12 d13  144: d14 d15
// 160: fpcr, padding
//
// fiber.cpp builds the same frame for a new fiber, with x30 pointing at
// cuforge_fiber_trampoline, x20 = the function to call and x19 = its
// argument.

#if defined(__aarch64__)

        .text
        .p2align 4
        .globl  cuforge_fiber_switch
        .hidden cuforge_fiber_switch
        .type   cuforge_fiber_switch, %function
cuforge_fiber_switch:
        .cfi_startproc
        sub     sp, sp, #176
        .cfi_adjust_cfa_offset 176
        stp     x19, x20, [sp, #0]
        stp     x21, x22, [sp, #16]
        stp     x23, x24, [sp, #32]
        stp     x25, x26, [sp, #48]
        stp     x27, x28, [sp, #64]
        stp     x29, x30, [sp, #80]
        .cfi_rel_offset x29, 80
        .cfi_rel_offset x30, 88
        stp     d8, d9, [sp, #96]
        stp     d10, d11, [sp, #112]
        stp     d12, d13, [sp, #128]
        stp     d14, d15, [sp, #144]
        mrs     x9, fpcr
        str     x9, [sp, #160]

        // The frame on the new stack has the same shape, so the unwind
        // information above stays true after the switch.
        mov     x2, sp
        str     x2, [x0]
        mov     sp, x1

        // Writing FPCR may synchronise the pipeline on some cores, and it
        // almost never differs between fibers: write it only when it does.
        ldr     x10, [sp, #160]
        cmp     x9, x10
        b.eq    1f
        msr     fpcr, x10
1:

        ldp     x19, x20, [sp, #0]
        ldp     x21, x22, [sp, #16]
        ldp     x23, x24, [sp, #32]
        ldp     x25, x26, [sp, #48]
        ldp     x27, x28, [sp, #64]
        ldp     x29, x30, [sp, #80]
        ldp     d8, d9, [sp, #96]
        ldp     d10, d11, [sp, #112]
        ldp     d12, d13, [sp, #128]
        ldp     d14, d15, [sp, #144]
        add     sp, sp, #176
        .cfi_adjust_cfa_offset -176
        .cfi_restore x29
        .cfi_restore x30
        ret
        .cfi_endproc
        .size   cuforge_fiber_switch, .-cuforge_fiber_switch

// The first code a new fiber runs, entered by the `ret` above with sp
// 16-byte aligned: calls x20(x19), which never returns. Marks the return
// address undefined so unwinders and debuggers stop here instead of walking
// into whatever lies above the fiber's stack.
        .p2align 4
        .globl  cuforge_fiber_trampoline
        .hidden cuforge_fiber_trampoline
        .type   cuforge_fiber_trampoline, %function
cuforge_fiber_trampoline:
        .cfi_startproc
        .cfi_undefined x30
        mov     x0, x19
        blr     x20
        brk     #0
        .cfi_endproc
        .size   cuforge_fiber_trampoline, .-cuforge_fiber_trampoline

#endif

#if defined(__aarch64__) || defined(__arm__)
        .section .note.GNU-stack,"",%progbits
#else
        .section .note.GNU-stack,"",@progbits
#endif
