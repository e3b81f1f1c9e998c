# SPDX-License-Identifier: Apache-2.0
# boards/riscv32/board.mk — bare-metal RV32 firmware for QEMU's `virt`
# machine, built with Debian's riscv64-unknown-elf-gcc and picolibc (which
# supplies memcpy/memset, vsnprintf and libgcc's soft float).
#
#   riscv32     RV32IMC, ilp32 (the cores of the ESP32-C3 and many small
#               MCUs); QEMU runs it with -cpu rv32,a=off,f=off,d=off so an
#               instruction outside RV32IMC traps
#   riscv32-f   RV32IMFC, ilp32f (hardware single-precision floats), in
#               build/riscv32/f/
# Both run the portable kernels.
#
# Outputs in build/riscv32/: firmware-<model>.elf (examples/firmware),
# firmware-none.elf, systolic_check.elf. Run one:
#   qemu-system-riscv32 -M virt -cpu rv32,a=off,f=off,d=off -bios none \
#       -nographic -kernel build/riscv32/firmware-mnist.elf [-append 3]
# (console on the UART, exit status through the test device).

RV_CC := riscv64-unknown-elf-gcc
RV_AR := riscv64-unknown-elf-ar

riscv32_CFLAGS    := -march=rv32imc -mabi=ilp32 -mcmodel=medany
riscv32_QEMU_CPU  := rv32,a=off,f=off,d=off
riscv32-f_CFLAGS   := -march=rv32imfc -mabi=ilp32f -mcmodel=medany
riscv32-f_QEMU_CPU := rv32,a=off,d=off
# The board code reads CSRs (Zicsr, which GCC 12 wants named); everything
# else, and the link's choice of picolibc and libgcc, keeps the plain ISA,
# for which Debian ships libraries.
RV_CSR = -march=$(patsubst -march=%,%,$(filter -march=%,$($(1)_CFLAGS)))_zicsr

RV_CONFIGS := riscv32 riscv32-f

# $(1) = configuration
define RV_CONFIG
$(1)_DIR      := $$(if $$(filter riscv32-f,$(1)),$$(BUILD)/riscv32/f,$$(BUILD)/$(1))
$(1)_CC       := $$(RV_CC)
$(1)_AR       := $$(RV_AR)
$(1)_BOARDDIR := boards/riscv32
$(1)_BOARD_OBJ = $$($(1)_DIR)/board/startup.o $$($(1)_DIR)/board/console.o $$($(1)_DIR)/board/bootargs.o
$(1)_FWFLAGS  := -ffunction-sections -fdata-sections --specs=picolibc.specs
$(1)_FWLINK    = -nostartfiles -T boards/riscv32/ld/virt.ld -Wl,--gc-sections -Wl,-Map=$$@.map
$(1)_EXT      := .elf

$$(eval $$(call BOARD_CONFIG,$(1)))

$$($(1)_DIR)/board/%.o: boards/riscv32/%.c boards/riscv32/board.h
	@mkdir -p $$(dir $$@)
	$$($(1)_CC) $$(BOARD_FW_CFLAGS) $$($(1)_CFLAGS) $$(call RV_CSR,$(1)) $$($(1)_FWFLAGS) -c $$< -o $$@
$$($(1)_DIR)/board/startup.o: boards/riscv32/startup.S
	@mkdir -p $$(dir $$@)
	$$($(1)_CC) $$($(1)_CFLAGS) $$(call RV_CSR,$(1)) -c $$< -o $$@

$$(foreach m,$$(FIRMWARE_MODELS),$$(eval $$(call BOARD_FIRMWARE,$(1),$$(m))))

$$($(1)_DIR)/fw/none/%.o: examples/firmware/%.c $$($(1)_BOARDDIR)/board.h engine/include/edge/edge.h
	@mkdir -p $$(dir $$@)
	$$($(1)_CC) $$(BOARD_FW_CFLAGS) $$($(1)_CFLAGS) $$($(1)_FWFLAGS) -I$$($(1)_BOARDDIR) \
	    -DFIRMWARE_NAME='"none"' -c $$< -o $$@
$$($(1)_DIR)/firmware-none.elf: $$($(1)_DIR)/fw/none/main.o $$($(1)_DIR)/fw/none/no_model.o \
        $$($(1)_BOARD_OBJ) $$($(1)_LIB)
	@mkdir -p $$(dir $$@)
	$$($(1)_CC) $$($(1)_CFLAGS) $$($(1)_FWFLAGS) $$(filter %.o,$$^) $$(call whole,$$($(1)_LIB)) $$($(1)_FWLINK) -o $$@

$$($(1)_DIR)/systolic_check.elf: $$(BOARD_TEST_SRC) $$($(1)_BOARD_OBJ) $$($(1)_LIB)
	@mkdir -p $$(dir $$@)
	$$($(1)_CC) $$(BOARD_FW_CFLAGS) $$($(1)_CFLAGS) $$($(1)_FWFLAGS) -Iengine/src -I$$($(1)_BOARDDIR) \
	    $$(BOARD_TEST_SRC) $$($(1)_BOARD_OBJ) $$(call whole,$$($(1)_LIB)) $$($(1)_FWLINK) -o $$@

$(1)_ALL = $$(FIRMWARE_MODELS:%=$$($(1)_DIR)/firmware-%.elf) $$($(1)_DIR)/firmware-none.elf
endef

$(foreach c,$(RV_CONFIGS),$(eval $(call RV_CONFIG,$(c))))

board-riscv32: $(riscv32_ALL) $(riscv32-f_ALL)
board-test-riscv32: board-riscv32 $(riscv32_DIR)/systolic_check.elf $(riscv32-f_DIR)/systolic_check.elf
