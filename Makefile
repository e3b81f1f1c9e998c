# SPDX-License-Identifier: Apache-2.0
# edgeq — top-level build. `make` builds the engine library and the edgeq
# tool; `make test` builds everything (plus a sanitizer build) and runs the
# whole suite (installing its tools first: test-deps). See README.md.

CC      ?= cc
PYTHON  ?= python3
BUILD   ?= build
OPT     ?= -O2

# Function and data sections: a program linked with --gc-sections keeps
# only the engine code it reaches (e.g. no float code in int8 firmware).
ENGINE_CFLAGS = -std=c99 -pedantic $(OPT) -g -Wall -Wextra -Werror -Wconversion -Wshadow \
                -ffreestanding -ffunction-sections -fdata-sections -Iengine/include -Iengine/src
HOST_CFLAGS   = -std=c11 $(OPT) -g -Wall -Wextra -Werror -Iengine/include -Iquantize -D_POSIX_C_SOURCE=200809L
HOST_PKGS     = hdf5 libcjson libzip
HOST_CFLAGS  += $(shell pkg-config --cflags $(HOST_PKGS))
HOST_LDLIBS   = $(shell pkg-config --libs $(HOST_PKGS)) -lm

ENGINE_SRC = $(wildcard engine/src/*.c engine/src/ops/*.c engine/src/kernels/*.c engine/src/kernels/*/*.c)
ENGINE_HDR = $(wildcard engine/include/edge/*.h engine/src/*.h engine/src/ops/*.h engine/src/ops/*.inc engine/src/kernels/*.h engine/src/kernels/*/*.h)
TOOL_SRC   = $(wildcard quantize/*.c quantize/*/*.c quantize/*/*/*.c)
TOOL_HDR   = $(wildcard quantize/*.h quantize/*/*.h quantize/*/*/*.h)
UNIT_SRC   = $(wildcard tests/unit/test_*.c)

ENGINE_OBJ = $(ENGINE_SRC:%.c=$(BUILD)/%.o)
TOOL_OBJ   = $(TOOL_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN   = $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all lib tool asan unit test test-deps test-unit test-py demo clean format lint
all: lib tool

lib: $(BUILD)/libedge.a
tool: $(BUILD)/edgeq

$(BUILD)/engine/%.o: engine/%.c $(ENGINE_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ENGINE_CFLAGS) $(EXTRA_CFLAGS) -c $< -o $@

$(BUILD)/quantize/%.o: quantize/%.c $(TOOL_HDR) engine/include/edge/edge.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(EXTRA_CFLAGS) -c $< -o $@

$(BUILD)/libedge.a: $(ENGINE_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/edgeq: $(TOOL_OBJ) $(BUILD)/libedge.a
	$(CC) $(EXTRA_CFLAGS) $(TOOL_OBJ) $(BUILD)/libedge.a $(HOST_LDLIBS) -o $@

# Unit tests (cmocka) see the engine's internal headers.
$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libedge.a
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(OPT) -g -Wall -Wextra -Werror -Iengine/include -Iengine/src $(EXTRA_CFLAGS) \
	    $< $(BUILD)/libedge.a -lcmocka -lm -o $@

unit: $(UNIT_BIN)

# The same engine and tool under AddressSanitizer + UndefinedBehaviorSanitizer.
SAN = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
asan:
	$(MAKE) BUILD=$(BUILD)/asan OPT=-O1 EXTRA_CFLAGS="$(SAN)" all unit

test-unit: unit asan
	@set -e; for t in $(UNIT_BIN) $(UNIT_BIN:$(BUILD)/%=$(BUILD)/asan/%); do echo "== $$t"; $$t; done

test-py: all asan
	$(PYTHON) -m pytest -q tests --ignore=tests/boards

# The suite's own tools (cross compilers, QEMU, the Python oracles...):
# installed by the suite itself, checked first so it is quick when present.
test-deps:
	tools/install-test-deps.sh

test: test-deps test-clang test-unit test-py test-fuzz test-tsan boards-test

# The first thing a newcomer runs, from the repository alone: the zoo's
# MNIST CNN on a handwritten 7. With ../shared beside the checkout, also
# TFLite Micro's person_detect on person.bmp.
PERSON_MODEL = $(MODELS)/tflite-micro/models/person_detect.tflite
demo: all
	@echo "== models/mnist_cnn (int8) on models/mnist_cnn/sample_7.pgm"
	$(BUILD)/host/classify models/mnist_cnn/mnist_cnn_int8.tflite models/mnist_cnn/sample_7.pgm \
	    --labels models/mnist_cnn/labels.txt
	@if test -f $(PERSON_MODEL); then \
	  echo "== person_detect on person.bmp ($(MODELS))"; \
	  set -x; $(PYTHON) tools/bmp_to_input.py $(MODELS)/tflite-micro/data/person.bmp $(BUILD)/person.bin && \
	  $(BUILD)/edgeq run $(PERSON_MODEL) --input $(BUILD)/person.bin --labels tools/person_labels.txt; \
	else echo "(person_detect skipped: no $(PERSON_MODEL))"; fi

clean:
	rm -rf $(BUILD)

format:
	clang-format -i $(ENGINE_SRC) $(ENGINE_HDR) $(TOOL_SRC) $(TOOL_HDR)

include boards/boards.mk
include bench/bench.mk
include models/models.mk
include fuzz/fuzz.mk
include dist/dist.mk
