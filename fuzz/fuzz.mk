# SPDX-License-Identifier: Apache-2.0
# fuzz/fuzz.mk — fuzzing, the verifier differential and valgrind.
# Included from the top-level Makefile (`include fuzz/fuzz.mk`).
#
#   make fuzz SECONDS=N     run each libFuzzer harness for N seconds (default 60)
#                           on FUZZ_JOBS workers; corpora live in build/fuzz/corpus/
#   make fuzz-build         just build the harnesses (clang, ASan+UBSan+libFuzzer)
#   make fuzz-verify        build tests/fuzz/official_verify (flatc C++ of the schema)
#   make valgrind           unit tests and a set of edgeq runs under valgrind
#
# `make test` (its pytest step over tests/) replays tests/regress/, runs the
# verifier differential (building what it needs via `make fuzz-verify`),
# the edgeq hostile-input tests and the valgrind runs: all in tests/fuzz/.

FUZZ_CC    ?= clang
FUZZ_CXX   ?= clang++
FUZZ_DIR    = $(BUILD)/fuzz
FUZZ_SAN    = -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS = -std=c11 -O1 -g -Iengine/include -Iengine/src -D_POSIX_C_SOURCE=200809L
SECONDS    ?= 60
FUZZ_JOBS  ?= 2
SHARED_MODELS ?= ../shared/models

FUZZ_ENGINE_OBJ = $(ENGINE_SRC:%.c=$(FUZZ_DIR)/%.o)
# The Keras config harness links the config walker and shape inference,
# not the HDF5 reader (libhdf5 1.10 crashes on damaged files by itself;
# keras/keras_load.c runs it in a forked child for that reason).
FUZZ_KERAS_SRC = quantize/keras/keras_config.c quantize/keras/kc.c quantize/keras/keras_shapes.c \
                 $(wildcard quantize/keras/layers/*.c) quantize/graph/ir.c quantize/err.c \
                 quantize/lower/emit.c quantize/lower/qparams.c quantize/lower/bf16.c
# (the layer families lower themselves too: emit.c, qparams.c, the engine's rounding)
FUZZ_KERAS_OBJ = $(FUZZ_KERAS_SRC:%.c=$(FUZZ_DIR)/%.o) $(FUZZ_DIR)/engine/src/quant.o
FUZZ_BINS = $(FUZZ_DIR)/fuzz_model $(FUZZ_DIR)/fuzz_keras_config $(FUZZ_DIR)/fuzz_keras_zip

.PHONY: fuzz fuzz-build fuzz-seeds fuzz-verify valgrind

$(FUZZ_DIR)/engine/%.o: engine/%.c $(ENGINE_HDR)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -ffreestanding -c $< -o $@

$(FUZZ_DIR)/quantize/%.o: quantize/%.c $(TOOL_HDR)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(shell pkg-config --cflags $(HOST_PKGS)) -Iquantize -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -c $< -o $@

$(FUZZ_DIR)/fuzz_model: fuzz/fuzz_model.c $(FUZZ_ENGINE_OBJ)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SAN) $^ -lm -o $@

$(FUZZ_DIR)/fuzz_keras_config: fuzz/fuzz_keras_config.c fuzz/keras_fake.h $(FUZZ_KERAS_OBJ)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(shell pkg-config --cflags $(HOST_PKGS)) -Iquantize $(FUZZ_SAN) $(filter %.c %.o,$^) \
	    $(HOST_LDLIBS) -o $@

$(FUZZ_DIR)/fuzz_keras_zip: fuzz/fuzz_keras_zip.c fuzz/keras_fake.h quantize/keras/keras_zip.c $(FUZZ_KERAS_OBJ) $(FUZZ_DIR)/quantize/keras/keras_h5.o
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(shell pkg-config --cflags $(HOST_PKGS)) -Iquantize $(FUZZ_SAN) $(filter-out quantize/keras/%.c,$(filter %.c %.o,$^)) \
	    $(HOST_LDLIBS) -o $@

fuzz-build: $(FUZZ_BINS)

# Seed corpora: every model in the shared folder and the op fixtures; the
# Keras configs of the fixtures (extracted by fuzz/seeds.py).
fuzz-seeds:
	@mkdir -p $(FUZZ_DIR)/corpus/model $(FUZZ_DIR)/seeds/model
	@find $(SHARED_MODELS) tests/fixtures/ops tests/regress tests/fuzz/corpus -type f \( -name '*.tflite' -o -name '*.bin' \) \
	    -exec cp -f {} $(FUZZ_DIR)/seeds/model/ \;
	$(PYTHON) fuzz/seeds.py $(FUZZ_DIR)/seeds

fuzz: fuzz-build fuzz-seeds
	@for h in model keras_config keras_zip; do \
	    mkdir -p $(FUZZ_DIR)/corpus/$$h $(FUZZ_DIR)/artifacts/$$h; \
	    echo "== fuzz_$$h for $(SECONDS) s on $(FUZZ_JOBS) workers"; \
	    $(FUZZ_DIR)/fuzz_$$h $(FUZZ_DIR)/corpus/$$h $(FUZZ_DIR)/seeds/$$h \
	        -max_total_time=$(SECONDS) -fork=$(FUZZ_JOBS) \
	        -max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	        -artifact_prefix=$(FUZZ_DIR)/artifacts/$$h/ \
	        >$(FUZZ_DIR)/fuzz_$$h.log 2>&1; rc=$$?; \
	    grep -h '^#[0-9]*: cov:' $(FUZZ_DIR)/fuzz_$$h.log | tail -1; \
	    ls $(FUZZ_DIR)/artifacts/$$h; \
	    if [ $$rc -ne 0 ]; then echo "fuzz_$$h found a crash: see $(FUZZ_DIR)/artifacts/$$h"; exit 1; fi; \
	done

# The official FlatBuffers verifier, for the differential test.
$(FUZZ_DIR)/tflite_generated.h: $(SHARED_MODELS)/tflite_schema_flatc2.fbs
	@mkdir -p $(FUZZ_DIR)
	flatc --cpp -o $(FUZZ_DIR) $<
	mv $(FUZZ_DIR)/tflite_schema_flatc2_generated.h $@

$(FUZZ_DIR)/official_verify: tests/fuzz/official_verify.cc $(FUZZ_DIR)/tflite_generated.h
	$(CXX) -std=c++17 -O1 -g -I$(FUZZ_DIR) $< -o $@

# The engine side of the differential: load each file, print the status.
$(FUZZ_DIR)/engine_verify: tests/fuzz/engine_verify.c $(BUILD)/libedge.a
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O1 -g -Iengine/include -Iengine/src $< $(BUILD)/libedge.a -lm -o $@

fuzz-verify: $(FUZZ_DIR)/official_verify $(FUZZ_DIR)/engine_verify

# Unit tests and a set of edgeq runs under valgrind (about a minute; also
# part of `make test`, as tests/fuzz/test_valgrind.py).
valgrind: all unit
	$(PYTHON) -m pytest -q tests/fuzz/test_valgrind.py
