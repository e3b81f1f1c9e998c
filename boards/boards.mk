# SPDX-License-Identifier: Apache-2.0
# boards/boards.mk — libedge and the examples for each board.
#
# Included by the top-level Makefile, after its own rules: it uses
# ENGINE_SRC, ENGINE_HDR, ENGINE_CFLAGS, OPT, BUILD, PYTHON and the host
# $(BUILD)/libedge.a and $(BUILD)/edgeq from there.
#
#   make BOARD=<board>    libedge (with the board's systolic kernel variant)
#                         and the examples, into $(BUILD)/<board>/
#       host              classify (GPIO: fake backend only)
#       rpi-aarch64       classify for Pi 3/4/5 (NEON) and classify-static;
#                         pi5/classify (NEON with sdot: Pi 5 only)
#       rpi-armhf         classify for 32-bit Raspberry Pi OS (NEON)
#       cortex-m4         firmware-{mnist,kws,vww,ic}.elf for QEMU mps2-an386 (DSP)
#       cortex-m7         the same for mps2-an500 (DSP)
#       cortex-m55        the same for mps3-an547 (MVE)
#       riscv32           firmware-*.elf for QEMU virt, RV32IMC and RV32IMFC
#                         (portable kernels)
#   make BOARD=<board> OWN_MODEL=my.tflite OWN_SAMPLE=input.bin [OWN_LABELS=labels.txt]
#                         your own model's firmware too, firmware-own(.elf):
#                         the sample is the input tensor's raw bytes
#   make size             flash and RAM of the Cortex-M firmware: the engine
#                         alone and with each model (BOARD=cortex-m4 unless
#                         BOARD names another Cortex-M board)
#   make cm-count         executed instructions per inference (QEMU +
#                         ../shared/tools/cm-run): M4 with the DSP and the
#                         portable kernel, M55 with MVE
#   make boards-test      build every board whose cross compiler is
#                         installed, then run tests/boards (QEMU)
#
# Each board's settings live in boards/<dir>/board.mk as variables of a
# "configuration" (one build of libedge); BOARD_CONFIG below turns a
# configuration into rules.

BOARD ?= host
SHARED ?= ../shared
MODELS ?= $(SHARED)/models
PYTHON ?= python3
BOARD_NAMES := host rpi-aarch64 rpi-armhf cortex-m4 cortex-m7 cortex-m55 riscv32

ifeq ($(filter $(BOARD),$(BOARD_NAMES)),)
$(error unknown BOARD=$(BOARD); boards: $(BOARD_NAMES))
endif

# A board's compiler, and the Debian package that has it.
BOARD_CC_rpi-aarch64 := aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu
BOARD_CC_rpi-armhf   := arm-linux-gnueabihf-gcc:gcc-arm-linux-gnueabihf
BOARD_CC_cortex-m4   := arm-none-eabi-gcc:gcc-arm-none-eabi libnewlib-arm-none-eabi
BOARD_CC_cortex-m7   := $(BOARD_CC_cortex-m4)
BOARD_CC_cortex-m55  := $(BOARD_CC_cortex-m4)
BOARD_CC_riscv32     := riscv64-unknown-elf-gcc:gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf
_board_cc := $(BOARD_CC_$(BOARD))
ifneq ($(_board_cc),)
ifeq ($(shell command -v $(firstword $(subst :, ,$(_board_cc))) 2>/dev/null),)
$(error BOARD=$(BOARD) needs $(firstword $(subst :, ,$(_board_cc))): apt-get install \
    $(wordlist 2,9,$(subst :, ,$(_board_cc))) (or run make test-deps))
endif
endif

# Rules defined here must not become the default goal of the includer.
_boards_default_goal := $(.DEFAULT_GOAL)

# The engine's flags (the top Makefile's), plus what every cross build wants.
BOARD_ENGINE_CFLAGS = $(ENGINE_CFLAGS)
# Examples and tools: hosted C11. No FMA contraction, so that image
# resizing gives the same floats on every architecture.
BOARD_APP_CFLAGS = -std=c11 $(OPT) -g -Wall -Wextra -Werror -ffp-contract=off \
                   -Iengine/include

# Board objects are rebuilt when a board's flags change.
BOARD_MKS := $(wildcard boards/boards.mk boards/*/board.mk)

have_tool = $(if $(shell command -v $(1) 2>/dev/null),yes,)

CLASSIFY_SRC = examples/classify/classify.c examples/classify/image.c examples/classify/gpio_fake.c
CLASSIFY_HDR = $(wildcard examples/classify/*.h) engine/include/edge/edge.h
# mnist (the zoo's, in the repository) always; the MLPerf Tiny models when
# ../shared/models (or MODELS=DIR) is there.
FIRMWARE_MODELS := mnist $(if $(wildcard $(MODELS)/mlcommons-tiny),kws vww ic) $(if $(OWN_MODEL),own)
BOARD_TEST_SRC = tests/boards/systolic_check.c
BOARD_RUN_SRC = tests/boards/run_model.c


# ---- one configuration: $(1) = its name ----
#  $(1)_DIR     build directory          $(1)_CC, $(1)_AR   tools
#  $(1)_LIB     its libedge.a (set by BOARD_CONFIG; the host uses the top one)
#  $(1)_CFLAGS  CPU and variant flags
#  linux:    $(1)_GPIO (libgpiod backend source, or empty), $(1)_LDLIBS
#  firmware: $(1)_BOARDDIR (its board.h), $(1)_BOARD_OBJ, $(1)_FWFLAGS,
#            $(1)_FWLINK, $(1)_EXT (".elf" or empty)
define BOARD_CONFIG
$(1)_OBJ := $$(ENGINE_SRC:%.c=$$($(1)_DIR)/%.o)
$$($(1)_DIR)/engine/%.o: engine/%.c $$(ENGINE_HDR) $$(BOARD_MKS)
	@mkdir -p $$(dir $$@)
	$$($(1)_CC) $$(BOARD_ENGINE_CFLAGS) $$($(1)_CFLAGS) -c $$< -o $$@
$(1)_LIB := $$($(1)_DIR)/libedge.a
$$($(1)_LIB): $$($(1)_OBJ)
	@rm -f $$@
	$$($(1)_AR) rcs $$@ $$^
endef

define BOARD_LINUX_APPS
$$($(1)_DIR)/classify: $$(CLASSIFY_SRC) $$($(1)_GPIO) $$(CLASSIFY_HDR) $$($(1)_LIB)
	@mkdir -p $$(dir $$@)
	$$($(1)_CC) $$(BOARD_APP_CFLAGS) $$($(1)_CFLAGS) $$(if $$($(1)_GPIO),-DCLASSIFY_HAVE_LIBGPIOD) \
	    -Iexamples/classify $$(CLASSIFY_SRC) $$($(1)_GPIO) $$(call whole,$$($(1)_LIB)) $$($(1)_LDLIBS) -lm -o $$@
# Test tools: the systolic variant check (engine internals) and a model runner.
$$($(1)_DIR)/systolic_check: $$(BOARD_TEST_SRC) boards/host/console.c boards/host/board.h $$($(1)_LIB)
	@mkdir -p $$(dir $$@)
	$$($(1)_CC) $$(BOARD_APP_CFLAGS) $$($(1)_CFLAGS) -Iengine/src -Iboards/host \
	    $$(BOARD_TEST_SRC) boards/host/console.c $$(call whole,$$($(1)_LIB)) -lm -o $$@
$$($(1)_DIR)/run_model: $$(BOARD_RUN_SRC) $$($(1)_LIB)
	@mkdir -p $$(dir $$@)
	$$($(1)_CC) $$(BOARD_APP_CFLAGS) $$($(1)_CFLAGS) $$(BOARD_RUN_SRC) $$(call whole,$$($(1)_LIB)) -lm -o $$@
endef

# Applications that load any model link libedge whole: the op registry
# refers to every op, and whole keeps that independent of link order.
whole = -Wl,--whole-archive $(1) -Wl,--no-whole-archive

# Firmware data (board-independent): each model, its sample input and its
# labels as C arrays, from the host edgeq and the host classify.
FW_DATA := $(BUILD)/firmware-data
FW_MODEL_kws := $(MODELS)/mlcommons-tiny/models/keyword_spotting/kws_ref_model.tflite
FW_MODEL_vww := $(MODELS)/mlcommons-tiny/models/visual_wake_words/vww_96_int8.tflite
FW_MODEL_ic  := $(MODELS)/mlcommons-tiny/models/image_classification/pretrainedResnet_quant.tflite
FW_PERSON    := $(MODELS)/tflite-micro/data/person.bmp
FW_YES       := $(MODELS)/tflite-micro/data/yes_micro_features_49x40_s8.bin
FW_MODEL_mnist := models/mnist_cnn/mnist_cnn_int8.tflite
FW_SAMPLE_mnist := models/mnist_cnn/sample_7.pgm

$(FW_DATA)/%/model_data.c: $(BUILD)/edgeq
	@test -f $(FW_MODEL_$*) || { echo "firmware: no $(FW_MODEL_$*): the MLPerf Tiny models are" \
	    "read from ../shared/models (or MODELS=DIR)"; exit 1; }
	@mkdir -p $(dir $@)
	$(BUILD)/edgeq export --c --arena $(FW_MODEL_$*) -o $@
$(FW_DATA)/%/model_ops.h: $(BUILD)/edgeq
	@mkdir -p $(dir $@)
	$(BUILD)/edgeq export --ops $(FW_MODEL_$*) -o $@
$(FW_DATA)/%/labels_data.c: examples/firmware/labels/%.txt $(BUILD)/edgeq
	@mkdir -p $(dir $@)
	$(BUILD)/edgeq export --c --name labels_data $< -o $@
$(FW_DATA)/mnist/labels_data.c: models/mnist_cnn/labels.txt $(BUILD)/edgeq
	@mkdir -p $(dir $@)
	$(BUILD)/edgeq export --c --name labels_data $< -o $@
$(FW_DATA)/%/sample_data.c: $(FW_DATA)/%/sample.bin $(BUILD)/edgeq
	$(BUILD)/edgeq export --c --name sample_data $< -o $@
# Samples. VWW and IC: TFLite Micro's person.bmp (stored as int8 values)
# through classify's own resize and quantization. KWS: no MFCC sample ships
# with the models, so the first 49x10 int8 values of TFLite Micro's "yes"
# feature map stand in (a fixed, real-valued input; its class means little).
$(FW_DATA)/vww/sample.bin $(FW_DATA)/ic/sample.bin: $(FW_DATA)/%/sample.bin: $(BUILD)/host/classify
	@mkdir -p $(dir $@)
	$(BUILD)/host/classify $(FW_MODEL_$*) $(FW_PERSON) --signed-pixels --top 1 --dump-input $@ >/dev/null
$(FW_DATA)/mnist/sample.bin: $(BUILD)/host/classify
	@mkdir -p $(dir $@)
	$(BUILD)/host/classify $(FW_MODEL_mnist) $(FW_SAMPLE_mnist) --top 1 --dump-input $@ >/dev/null
# Your own model (OWN_MODEL=...): its arrays are made anew on every run, so
# another OWN_MODEL never meets a stale one.
ifneq ($(OWN_MODEL),)
FW_MODEL_own := $(OWN_MODEL)
.PHONY: $(FW_DATA)/own/model_data.c $(FW_DATA)/own/model_ops.h $(FW_DATA)/own/sample.bin $(FW_DATA)/own/labels_data.c
$(FW_DATA)/own/model_data.c: $(BUILD)/edgeq
	@mkdir -p $(dir $@)
	$(BUILD)/edgeq export --c --arena $(OWN_MODEL) -o $@
$(FW_DATA)/own/model_ops.h: $(BUILD)/edgeq
	@mkdir -p $(dir $@)
	$(BUILD)/edgeq export --ops $(OWN_MODEL) -o $@
$(FW_DATA)/own/sample.bin:
	@test -n "$(OWN_SAMPLE)" || { echo "OWN_MODEL needs OWN_SAMPLE=FILE: the input tensor's raw bytes"; exit 1; }
	@mkdir -p $(dir $@)
	cp $(OWN_SAMPLE) $@
$(FW_DATA)/own/labels_data.c: $(BUILD)/edgeq
	@mkdir -p $(dir $@)
	$(if $(OWN_LABELS),cp $(OWN_LABELS) $(FW_DATA)/own/labels.txt,: > $(FW_DATA)/own/labels.txt)
	$(BUILD)/edgeq export --c --name labels_data $(FW_DATA)/own/labels.txt -o $@
endif
$(FW_DATA)/kws/sample.bin:
	@mkdir -p $(dir $@)
	head -c 490 $(FW_YES) > $@.tmp && mv $@.tmp $@
.PRECIOUS: $(FW_DATA)/%/model_data.c $(FW_DATA)/%/model_ops.h $(FW_DATA)/%/labels_data.c $(FW_DATA)/%/sample_data.c $(FW_DATA)/%/sample.bin

# Firmware of configuration $(1) for model $(2).
define BOARD_FIRMWARE
$$($(1)_DIR)/fw/$(2)/%.o: $$(FW_DATA)/$(2)/%.c
	@mkdir -p $$(dir $$@)
	$$($(1)_CC) $$($(1)_CFLAGS) $$($(1)_FWFLAGS) -c $$< -o $$@
$$($(1)_DIR)/fw/$(2)/main.o: examples/firmware/main.c $$($(1)_BOARDDIR)/board.h engine/include/edge/edge.h
	@mkdir -p $$(dir $$@)
	$$($(1)_CC) $$(BOARD_FW_CFLAGS) $$($(1)_CFLAGS) $$($(1)_FWFLAGS) -I$$($(1)_BOARDDIR) \
	    -DFIRMWARE_NAME='"$(2)"' -c $$< -o $$@
# The firmware keeps only its model's ops: its own op registry, built with
# the header `edgeq export --ops` writes, links ahead of libedge.a, which is
# then searched (not linked whole) for what the ops need.
$$($(1)_DIR)/fw/$(2)/registry.o: engine/src/ops/registry.c $$(FW_DATA)/$(2)/model_ops.h $$(ENGINE_HDR)
	@mkdir -p $$(dir $$@)
	$$($(1)_CC) $$(BOARD_ENGINE_CFLAGS) $$($(1)_CFLAGS) $$($(1)_FWFLAGS) -I$$(FW_DATA)/$(2) \
	    -DEDGE_OPS_HEADER='"model_ops.h"' -c $$< -o $$@
$$($(1)_DIR)/firmware-$(2)$$($(1)_EXT): $$($(1)_DIR)/fw/$(2)/main.o $$($(1)_DIR)/fw/$(2)/model_data.o \
        $$($(1)_DIR)/fw/$(2)/sample_data.o $$($(1)_DIR)/fw/$(2)/labels_data.o \
        $$($(1)_DIR)/fw/$(2)/registry.o $$($(1)_BOARD_OBJ) $$($(1)_LIB)
	@mkdir -p $$(dir $$@)
	$$($(1)_CC) $$($(1)_CFLAGS) $$($(1)_FWFLAGS) $$(filter %.o,$$^) $$($(1)_LIB) $$($(1)_FWLINK) -o $$@
endef

BOARD_FW_CFLAGS = -std=c11 $(OPT) -g -Wall -Wextra -Werror -Iengine/include

# The boards (each defines its configurations and board-<name> targets).
include boards/host/board.mk
include boards/raspberrypi/board.mk
include boards/cortex-m/board.mk
include boards/riscv32/board.mk

# Boards built by `make BOARD=...` and by boards-test.
board: board-$(BOARD)
all: board

# Everything tests/boards runs: each board whose compiler is installed.
BOARDS_AVAILABLE := host $(if $(call have_tool,aarch64-linux-gnu-gcc),rpi-aarch64) \
    $(if $(call have_tool,arm-linux-gnueabihf-gcc),rpi-armhf) \
    $(if $(call have_tool,arm-none-eabi-gcc),cortex-m4 cortex-m7 cortex-m55) \
    $(if $(call have_tool,riscv64-unknown-elf-gcc),riscv32)

.PHONY: board boards-all boards-test size cm-count $(BOARD_NAMES:%=board-%) $(BOARD_NAMES:%=board-test-%)
boards-all: $(BOARDS_AVAILABLE:%=board-test-%)
boards-test: all boards-all
	$(PYTHON) -m pytest -q tests/boards

.DEFAULT_GOAL := $(_boards_default_goal)
