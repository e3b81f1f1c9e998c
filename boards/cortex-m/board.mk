# SPDX-License-Identifier: Apache-2.0
# boards/cortex-m/board.mk — bare-metal firmware for QEMU's Arm MPS2/MPS3
# boards, built with arm-none-eabi-gcc and newlib-nano (which only supplies
# memcpy/memset and libgcc's soft double; nothing allocates or prints
# through it).
#
#   cortex-m4   mps2-an386  Cortex-M4F  DSP variant (SMLAD)
#   cortex-m7   mps2-an500  Cortex-M7   DSP variant (SMLAD)
#   cortex-m55  mps3-an547  Cortex-M55  MVE variant (Helium)
#   cortex-m4-portable      the M4 with the portable kernel (for cm-count)
#
# Outputs in build/<board>/: firmware-{kws,vww,ic}.elf (MLPerf Tiny models),
# firmware-none.elf (no model: the engine's own size), systolic_check.elf.
# Run one: ../shared/tools/cm-run -M mps2-an386 build/cortex-m4/firmware-kws.elf
# Console: semihosting; CM_CONSOLE=uart prints on UART0 instead (the exit
# status still goes through semihosting).

CM_CC   := arm-none-eabi-gcc
CM_AR   := arm-none-eabi-ar
CM_SIZE := arm-none-eabi-size
CM_RUN  ?= $(SHARED)/tools/cm-run
CM_CONSOLE ?= semihost

cortex-m4_CFLAGS  := -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -DEDGE_SYSTOLIC_DSP
cortex-m4_MACHINE := mps2-an386
cortex-m4_LD      := boards/cortex-m/ld/mps2.ld
cortex-m4_UART    := 0x40004000u

cortex-m4-portable_CFLAGS  := -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16
cortex-m4-portable_MACHINE := mps2-an386
cortex-m4-portable_LD      := boards/cortex-m/ld/mps2.ld
cortex-m4-portable_UART    := 0x40004000u

cortex-m7_CFLAGS  := -mcpu=cortex-m7 -mthumb -mfloat-abi=hard -mfpu=fpv5-d16 -DEDGE_SYSTOLIC_DSP
cortex-m7_MACHINE := mps2-an500
cortex-m7_LD      := boards/cortex-m/ld/mps2.ld
cortex-m7_UART    := 0x40004000u

cortex-m55_CFLAGS  := -mcpu=cortex-m55 -mthumb -mfloat-abi=hard -DEDGE_SYSTOLIC_MVE
cortex-m55_MACHINE := mps3-an547
cortex-m55_LD      := boards/cortex-m/ld/mps3-an547.ld
cortex-m55_UART    := 0x59303000u

CM_CONFIGS := cortex-m4 cortex-m4-portable cortex-m7 cortex-m55

# $(1) = configuration
define CM_CONFIG
$(1)_DIR      := $$(if $$(filter cortex-m4-portable,$(1)),$$(BUILD)/cortex-m4/portable,$$(BUILD)/$(1))
$(1)_CC       := $$(CM_CC)
$(1)_AR       := $$(CM_AR)
$(1)_BOARDDIR := boards/cortex-m
$(1)_BOARD_OBJ = $$($(1)_DIR)/board/startup.o $$($(1)_DIR)/board/console.o
$(1)_FWFLAGS  := -ffunction-sections -fdata-sections
$(1)_FWLINK    = -nostartfiles --specs=nano.specs --specs=nosys.specs -T $$($(1)_LD) -Lboards/cortex-m/ld \
                 -Wl,--gc-sections -Wl,-Map=$$@.map
$(1)_EXT      := .elf
$(1)_CONSOLE  := $$(if $$(filter uart,$$(CM_CONSOLE)),-DBOARD_CONSOLE_UART -DBOARD_UART_BASE=$$($(1)_UART))

$$(eval $$(call BOARD_CONFIG,$(1)))

$$($(1)_DIR)/board/%.o: boards/cortex-m/%.c boards/cortex-m/board.h
	@mkdir -p $$(dir $$@)
	$$($(1)_CC) $$(BOARD_FW_CFLAGS) $$($(1)_CFLAGS) $$($(1)_FWFLAGS) $$($(1)_CONSOLE) -c $$< -o $$@

$$(foreach m,$$(FIRMWARE_MODELS),$$(eval $$(call BOARD_FIRMWARE,$(1),$$(m))))

# No model: the engine and the board code alone (for `make size`).
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
	$$($(1)_CC) $$(BOARD_FW_CFLAGS) $$($(1)_CFLAGS) $$($(1)_FWFLAGS) -Iengine/src -Iboards/cortex-m \
	    $$(BOARD_TEST_SRC) $$($(1)_BOARD_OBJ) $$(call whole,$$($(1)_LIB)) $$($(1)_FWLINK) -o $$@

$(1)_ALL = $$(FIRMWARE_MODELS:%=$$($(1)_DIR)/firmware-%.elf) $$($(1)_DIR)/firmware-none.elf
endef

$(foreach c,$(CM_CONFIGS),$(eval $(call CM_CONFIG,$(c))))

board-cortex-m4: $(cortex-m4_ALL)
board-cortex-m7: $(cortex-m7_ALL)
board-cortex-m55: $(cortex-m55_ALL)
board-test-cortex-m4: board-cortex-m4 $(cortex-m4_DIR)/systolic_check.elf
board-test-cortex-m7: board-cortex-m7 $(cortex-m7_DIR)/systolic_check.elf
board-test-cortex-m55: board-cortex-m55 $(cortex-m55_DIR)/systolic_check.elf

# ---- make size ----
SIZE_BOARD := $(if $(filter cortex-m%,$(BOARD)),$(BOARD),cortex-m4)
size: $($(SIZE_BOARD)_ALL)
	@echo "$(SIZE_BOARD) ($($(SIZE_BOARD)_MACHINE)): flash = text + data, RAM = data + bss"
	@echo "(bss holds the model's arena and 16 KiB stack)"
	@echo "(engine: libedge's code in the image, from the link map; firmware-none has every op,"
	@echo " each model's firmware only the ops it uses)"
	@printf '%-22s %10s %10s %10s %10s %10s %10s\n' image text data bss flash RAM engine
	@for f in none $(FIRMWARE_MODELS); do \
	  e=$$($(PYTHON) tools/engine_text.py $($(SIZE_BOARD)_DIR)/firmware-$$f.elf.map | cut -d' ' -f1); \
	  $(CM_SIZE) -B $($(SIZE_BOARD)_DIR)/firmware-$$f.elf | awk -v n=firmware-$$f -v e=$$e 'NR==2 { \
	    printf "%-22s %10d %10d %10d %10d %10d %10d\n", n, $$1, $$2, $$3, $$1 + $$2, $$2 + $$3, e }'; \
	done
	@$(CM_SIZE) -t $($(SIZE_BOARD)_LIB) | awk 'END { printf "%-22s %10d %10d %10d %10d %10d\n", \
	    "libedge.a (all objects)", $$1, $$2, $$3, $$1 + $$2, $$2 + $$3 }'

# ---- make cm-count: instructions per inference ----
# A run with N invokes minus a run with 1 is N-1 inferences, exactly (the
# counting plugin counts every executed instruction; nothing depends on
# time). The MACs come from the firmware's own report. The M4 with the DSP
# kernel and with the portable one, and the M55 with MVE.
CM_COUNT_N ?= 3
CM_COUNT_RUNS := cortex-m4:dsp cortex-m4-portable:portable cortex-m55:mve
cm-count: $(cortex-m4_ALL) $(cortex-m4-portable_ALL) $(cortex-m55_ALL)
	@test -x $(CM_RUN) || { echo "cm-count needs $(CM_RUN) (QEMU instruction counting)"; exit 1; }
	@printf '%-6s %-10s %-9s %14s %12s %10s\n' model core kernel insns/infer MACs MACs/insn
	@$(foreach r,$(CM_COUNT_RUNS),$(foreach m,$(FIRMWARE_MODELS),\
	  elf=$($(firstword $(subst :, ,$(r)))_DIR)/firmware-$(m).elf; \
	  mach=$($(firstword $(subst :, ,$(r)))_MACHINE); \
	  a=$$($(CM_RUN) -M $$mach -t 600 --count $$elf -- -append 1 2>&1 >/dev/null | sed -n 's/^cm-run: insns=//p'); \
	  out=$$($(CM_RUN) -M $$mach -t 600 --count $$elf -- -append $(CM_COUNT_N) 2>&1); \
	  b=$$(echo "$$out" | sed -n 's/^cm-run: insns=//p'); \
	  macs=$$(echo "$$out" | sed -n 's/.* ops, \([0-9]*\) MACs.*/\1/p'); \
	  awk -v m=$(m) -v c=$$mach -v k=$(lastword $(subst :, ,$(r))) -v a=$$a -v b=$$b -v macs=$$macs \
	    -v n=$(CM_COUNT_N) 'BEGIN { i = (b - a) / (n - 1); \
	    printf "%-6s %-10s %-9s %14d %12d %10.3f\n", m, c, k, i, macs, macs / i }';))
