/* SPDX-License-Identifier: Apache-2.0 */
/*
 * startup.S — reset and trap entry for QEMU `virt` (RV32, machine mode,
 * linked with ld/virt.ld). QEMU's reset vector jumps here with a0 = hart
 * id and a1 = the device tree's address.
 *
 * Reset: park every hart but 0, set gp and sp, copy .data from flash,
 * zero .bss, enable the FPU when the build uses it, point mtvec at the
 * trap stub, run constructors, then board_start(fdt), which calls main()
 * and exits with its return value.
 */
    .section .text.start, "ax"
    .globl _start
_start:
    csrr    t0, mhartid
    bnez    t0, park
    .option push
    .option norelax
    la      gp, __global_pointer$
    .option pop
    la      sp, __stack_top
    mv      s0, a1                  /* the device tree, kept across the copies */

    la      t0, __data_load
    la      t1, __data_start
    la      t2, __data_end
1:  bgeu    t1, t2, 2f
    lw      t3, 0(t0)
    sw      t3, 0(t1)
    addi    t0, t0, 4
    addi    t1, t1, 4
    j       1b
2:  la      t1, __bss_start
    la      t2, __bss_end
3:  bgeu    t1, t2, 4f
    sw      zero, 0(t1)
    addi    t1, t1, 4
    j       3b
4:
#if defined(__riscv_flen)
    li      t0, 0x2000              /* mstatus.FS = Initial: F instructions allowed */
    csrs    mstatus, t0
    fscsr   zero
#endif
    la      t0, trap_entry
    csrw    mtvec, t0

    la      s1, __init_array_start
    la      s2, __init_array_end
5:  bgeu    s1, s2, 6f
    lw      t0, 0(s1)
    jalr    t0
    addi    s1, s1, 4
    j       5b
6:  mv      a0, s0
    call    board_start             /* does not return */

park:
    wfi
    j       park

/* Any trap is a fault here (nothing enables interrupts): report it. */
    .align  2
trap_entry:
    csrr    a0, mcause
    csrr    a1, mepc
    csrr    a2, mtval
    call    board_trap              /* does not return */
