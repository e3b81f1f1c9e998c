# SPDX-License-Identifier: Apache-2.0
# bench/bench.mk — `make bench`: the engine against TFLM and LiteRT/XNNPACK
# (see bench/README.md). Included by the top-level Makefile; uses its CC,
# PYTHON, BUILD, ENGINE_SRC and ENGINE_HDR.
#
#   make bench                      the whole run (a few minutes), into $(BUILD)/bench/
#   make bench BENCH_ARGS="--only vww,kws --rounds 5"
#   make bench BENCH_FIRMWARE=no    do not build the Cortex-M4 firmware first
#
# Outputs: the table on stdout, $(BUILD)/bench/bench.csv, ops.csv (engine
# time per op), text.csv (.text per object) and bench.png (bench.svg when
# matplotlib cannot be installed).

BENCH_DIR      := $(BUILD)/bench
BENCH_MODELS   ?= $(if $(MODELS),$(MODELS),../shared/models)
BENCH_CM_RUN   ?= $(if $(CM_RUN),$(CM_RUN),../shared/tools/cm-run)
BENCH_ARGS     ?=
BENCH_FIRMWARE ?= auto
BENCH_M4_CC    ?= arm-none-eabi-gcc

# The engine for Cortex-M4 at -Os, as the cortex-m4 board builds it (DSP
# kernel variant, hard float), only to measure its code size: int8 only
# (EDGE_WITH_UINT8=0, engine/src/edge_config.h), the op set the target
# counts, and, for the second figure, the default build with the uint8
# kernels too (m4-Os-u8).
BENCH_M4_CFLAGS_ALL = -std=c99 -Os -Wall -Wextra -ffreestanding -Iengine/include -Iengine/src \
                  -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -DEDGE_SYSTOLIC_DSP \
                  -ffunction-sections -fdata-sections
BENCH_M4_CFLAGS = $(BENCH_M4_CFLAGS_ALL) -DEDGE_WITH_UINT8=0
BENCH_M4_OBJ = $(ENGINE_SRC:%.c=$(BENCH_DIR)/m4-Os/%.o)
BENCH_M4U8_OBJ = $(ENGINE_SRC:%.c=$(BENCH_DIR)/m4-Os-u8/%.o)
BENCH_M4U8_LIB = $(BENCH_DIR)/m4-Os-u8/libedge.a
BENCH_HAVE_M4_CC := $(if $(shell command -v $(BENCH_M4_CC) 2>/dev/null),yes,)

# The same objects linked (--gc-sections) into a program that loads and runs
# a model (bench/m4_size_main.c), with an op registry that keeps the whole
# int8 op set (bench/int8_ops.h, no float twins) or one model's ops (the
# header `edgeq export --ops` writes for the firmware): the engine code a
# firmware really carries, read from the linker map by bench.py.
BENCH_M4_LIB   = $(BENCH_DIR)/m4-Os/libedge.a
BENCH_M4_SETS  = int8 $(FIRMWARE_MODELS)
BENCH_M4_ELF   = $(BENCH_M4_SETS:%=$(BENCH_DIR)/m4-Os/link/%/engine.elf) $(BENCH_DIR)/m4-Os/link/uint8/engine.elf
BENCH_M4_OPS_int8 = bench/int8_ops.h
$(foreach m,$(FIRMWARE_MODELS),$(eval BENCH_M4_OPS_$(m) = $(FW_DATA)/$(m)/model_ops.h))

.PHONY: bench bench-deps bench-firmware bench-text

# The .text figure alone, per object (the quick loop for size work):
#   make bench-text            BENCH_TEXT=--functions for per-function bytes
BENCH_TEXT ?= --objects
bench-text: $(BENCH_DIR)/m4-Os/link/int8/engine.elf
	@$(PYTHON) tools/engine_text.py $(BENCH_TEXT) $<.map

$(BENCH_DIR)/bench_engine: bench/bench_engine.c $(BUILD)/libedge.a engine/include/edge/edge.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -g -Wall -Wextra -Werror -Iengine/include $< \
	    -Wl,--whole-archive $(BUILD)/libedge.a -Wl,--no-whole-archive -lm -o $@

$(BENCH_DIR)/libpeerclock.so: bench/peer_clock.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC $< -o $@

$(BENCH_DIR)/m4-Os/%.o: %.c $(ENGINE_HDR)
	@mkdir -p $(dir $@)
	$(BENCH_M4_CC) $(BENCH_M4_CFLAGS) -c $< -o $@

$(BENCH_M4_LIB): $(BENCH_M4_OBJ)
	@rm -f $@
	arm-none-eabi-ar rcs $@ $^

$(BENCH_DIR)/m4-Os-u8/%.o: %.c $(ENGINE_HDR)
	@mkdir -p $(dir $@)
	$(BENCH_M4_CC) $(BENCH_M4_CFLAGS_ALL) -c $< -o $@

$(BENCH_M4U8_LIB): $(BENCH_M4U8_OBJ)
	@rm -f $@
	arm-none-eabi-ar rcs $@ $^

# The whole op set's registry (int8's), on the library with uint8.
$(BENCH_DIR)/m4-Os/link/uint8/engine.elf: bench/m4_size_main.c $(BENCH_DIR)/m4-Os/link/int8/registry.o $(BENCH_M4U8_LIB)
	@mkdir -p $(dir $@)
	$(BENCH_M4_CC) $(BENCH_M4_CFLAGS_ALL) $^ --specs=nano.specs --specs=nosys.specs \
	    -Wl,--gc-sections -Wl,-Map=$@.map -o $@

define BENCH_M4_REGISTRY
$(BENCH_DIR)/m4-Os/link/$(1)/registry.o: engine/src/ops/registry.c $(BENCH_M4_OPS_$(1)) $(ENGINE_HDR)
	@mkdir -p $$(dir $$@)
	$$(BENCH_M4_CC) $$(BENCH_M4_CFLAGS) -DEDGE_OPS_HEADER='"$(abspath $(BENCH_M4_OPS_$(1)))"' -c $$< -o $$@
endef
$(foreach s,$(BENCH_M4_SETS),$(eval $(call BENCH_M4_REGISTRY,$(s))))

$(BENCH_DIR)/m4-Os/link/%/engine.elf: bench/m4_size_main.c $(BENCH_DIR)/m4-Os/link/%/registry.o $(BENCH_M4_LIB)
	$(BENCH_M4_CC) $(BENCH_M4_CFLAGS) $^ --specs=nano.specs --specs=nosys.specs \
	    -Wl,--gc-sections -Wl,-Map=$@.map -o $@

# Python packages the bench needs beyond the project's own (the peers,
# tflite-micro and ai-edge-litert, come from tools/install-deps.sh).
bench-deps:
	@$(PYTHON) -c 'import matplotlib' 2>/dev/null || \
	    $(PYTHON) -m pip install -q -r bench/requirements.txt || \
	    echo "bench: matplotlib could not be installed: the plot will be an SVG"

# The Cortex-M4 firmware (boards/boards.mk), when its rules and compiler are
# there; the bench says "n/a" for the column otherwise.
bench-firmware: $(BUILD)/libedge.a $(BUILD)/edgeq
	@$(if $(and $(filter-out no,$(BENCH_FIRMWARE)),$(BENCH_HAVE_M4_CC),$(cortex-m4_ALL)), \
	    $(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) $(cortex-m4_ALL) || \
	    echo "bench: the Cortex-M4 firmware did not build: no M4 column", \
	    echo "bench: Cortex-M4 firmware not built here (BENCH_FIRMWARE=$(BENCH_FIRMWARE))")

bench: $(BUILD)/libedge.a $(BUILD)/edgeq $(BENCH_DIR)/bench_engine $(BENCH_DIR)/libpeerclock.so \
       $(if $(BENCH_HAVE_M4_CC),$(BENCH_M4_OBJ) $(BENCH_M4_ELF)) bench-deps bench-firmware
	@echo "$(PYTHON) bench/bench.py --build $(BUILD) --models $(BENCH_MODELS) $(BENCH_ARGS)"
	@$(PYTHON) bench/bench.py --build $(BUILD) --models $(BENCH_MODELS) --cm-run $(BENCH_CM_RUN) \
	    $(if $(BENCH_HAVE_M4_CC),--m4-objs "$(BENCH_M4_OBJ)" --m4-elfs "$(BENCH_M4_ELF)") $(BENCH_ARGS)
