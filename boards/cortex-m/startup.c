/* SPDX-License-Identifier: Apache-2.0 */
/*
 * startup.c — reset and fault entry for the Cortex-M boards (QEMU MPS2
 * an386 / an500, MPS3 an547), linked with ld/sections.ld.
 *
 * Reset: copy .data from flash, zero .bss, give the FPU access (CPACR) when
 * the build uses it, run constructors, call main() and exit with its return
 * value. Faults print the faulting pc and exit with status 250.
 */
#include <stdint.h>

#include "board.h"

extern uint32_t __data_load[], __data_start[], __data_end[];
extern uint32_t __bss_start[], __bss_end[];
extern uint32_t __stack_top[];
extern void (*__init_array_start[])(void);
extern void (*__init_array_end[])(void);

int main(void);
void Reset_Handler(void);

#define BOARD_FAULT_EXIT 250

/* Called from the fault stubs with the stacked exception frame
 * (r0-r3, r12, lr, pc, xpsr) and which fault it was. */
__attribute__((used, noreturn)) void board_fault(const uint32_t *frame, uint32_t kind);
void board_fault(const uint32_t *frame, uint32_t kind) {
    static const char *const what[] = {"NMI", "HardFault", "MemManage fault", "BusFault",
                                       "UsageFault", "unexpected interrupt"};
    board_printf("\n*** %s at pc=0x%08lx (lr=0x%08lx)\n", what[kind < 5 ? kind : 5],
                 (unsigned long)frame[6], (unsigned long)frame[5]);
    board_exit(BOARD_FAULT_EXIT);
}

/* The frame is on whichever stack was in use (bit 2 of EXC_RETURN). */
#define FAULT_STUB(name, kind)                                               \
    __attribute__((naked)) static void name(void) {                          \
        __asm__ volatile("tst lr, #4\n\t"                                    \
                         "ite eq\n\t"                                        \
                         "mrseq r0, msp\n\t"                                 \
                         "mrsne r0, psp\n\t"                                 \
                         "movs r1, %0\n\t"                                   \
                         "b board_fault" ::"i"(kind));                       \
    }
FAULT_STUB(nmi_handler, 0)
FAULT_STUB(hardfault_handler, 1)
FAULT_STUB(memmanage_handler, 2)
FAULT_STUB(busfault_handler, 3)
FAULT_STUB(usagefault_handler, 4)
FAULT_STUB(default_handler, 5)

/* 16 system exceptions and the first 32 interrupts: nothing here enables
 * an interrupt, so any that fires is reported as unexpected. */
typedef void (*vector)(void);
__attribute__((section(".vectors"), used)) static const vector vector_table[16 + 32] = {
    (vector)(uintptr_t)__stack_top,
    Reset_Handler,
    nmi_handler,
    hardfault_handler,
    memmanage_handler,
    busfault_handler,
    usagefault_handler,
    [7 ... 16 + 32 - 1] = default_handler,
};

__attribute__((noreturn)) void Reset_Handler(void) {
    const uint32_t *src = __data_load;
    for (uint32_t *dst = __data_start; dst < __data_end;) *dst++ = *src++;
    for (uint32_t *dst = __bss_start; dst < __bss_end;) *dst++ = 0;
#if defined(__ARM_FP)
    /* CPACR: full access to CP10/CP11, or the first FP instruction faults. */
    volatile uint32_t *const cpacr = (volatile uint32_t *)0xE000ED88u;
    *cpacr |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
    for (void (**f)(void) = __init_array_start; f < __init_array_end; f++) (*f)();
    board_exit(main());
}
