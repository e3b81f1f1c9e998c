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
# kernel variant, hard float), only to measure its code size.
BENCH_M4_CFLAGS = -std=c99 -Os -Wall -Wextra -ffreestanding -Iengine/include -Iengine/src \
                  -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -DEDGE_SYSTOLIC_DSP \
                  -ffunction-sections -fdata-sections
BENCH_M4_OBJ = $(ENGINE_SRC:%.c=$(BENCH_DIR)/m4-Os/%.o)
BENCH_HAVE_M4_CC := $(if $(shell command -v $(BENCH_M4_CC) 2>/dev/null),yes,)

.PHONY: bench bench-deps bench-firmware

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
       $(if $(BENCH_HAVE_M4_CC),$(BENCH_M4_OBJ)) bench-deps bench-firmware
	@echo "$(PYTHON) bench/bench.py --build $(BUILD) --models $(BENCH_MODELS) $(BENCH_ARGS)"
	@$(PYTHON) bench/bench.py --build $(BUILD) --models $(BENCH_MODELS) --cm-run $(BENCH_CM_RUN) \
	    $(if $(BENCH_HAVE_M4_CC),--m4-objs "$(BENCH_M4_OBJ)") $(BENCH_ARGS)
