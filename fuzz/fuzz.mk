# SPDX-License-Identifier: Apache-2.0
# fuzz/fuzz.mk — fuzzing, the verifier differential and valgrind.
# Included from the top-level Makefile (`include fuzz/fuzz.mk`).
#
#   make fuzz SECONDS=N     run each libFuzzer harness for N seconds (default 60)
#                           on FUZZ_JOBS workers; corpora live in build/fuzz/corpus/
#                           (FUZZ_ONLY="model npy" runs just those harnesses)
#   make fuzz-build         just build the harnesses (clang, ASan+UBSan+libFuzzer)
#   make fuzz-verify        build tests/fuzz/official_verify (flatc C++ of the schema)
#   make valgrind           unit tests and a set of edgeq runs under valgrind
#   make test-fuzz          (part of `make test`) every harness built and run for a
#                           bounded number of executions from its seeds, and
#                           tests/regress/ replayed through fuzz_model (clang UBSan)
#   make test-tsan          (part of `make test`) models invoked at once from several
#                           threads under ThreadSanitizer (tests/concurrency/threads.c)
#   make test-clang         (part of `make test`) the engine and edgeq built with
#                           clang, warnings as errors, in $(BUILD)/clang
#
# `make test` (its pytest step over tests/) replays tests/regress/, runs the
# verifier differential (building what it needs via `make fuzz-verify`),
# the edgeq hostile-input tests and the valgrind runs: all in tests/fuzz/.

FUZZ_CC    ?= clang
FUZZ_CXX   ?= clang++
FUZZ_DIR    = $(BUILD)/fuzz
FUZZ_ABS    = $(abspath $(FUZZ_DIR))
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
FUZZ_BINS = $(FUZZ_DIR)/fuzz_model $(FUZZ_DIR)/fuzz_keras_config $(FUZZ_DIR)/fuzz_keras_zip \
            $(FUZZ_DIR)/fuzz_npy $(FUZZ_DIR)/fuzz_image $(FUZZ_DIR)/fuzz_keras_h5 $(FUZZ_DIR)/fuzz_cli
FUZZ_HARNESSES = $(patsubst $(FUZZ_DIR)/fuzz_%,%,$(FUZZ_BINS))
# fuzz_keras_h5 drives libhdf5 in-process, which hangs or crashes by itself
# on some damaged files within a few hundred inputs (edgeq runs it in a
# forked child for that reason): it runs in `make fuzz` with those ignored
# and its crashes sorted by hand, not in the short runs of `make test`.
FUZZ_SHORT_HARNESSES = $(filter-out keras_h5,$(FUZZ_HARNESSES))
FUZZ_IGNORE_keras_h5 = -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1
# fuzz_cli prints help and usage on almost every input: stdout and stderr
# closed (libFuzzer still prints a crash's report). It works in a temporary
# directory, hence the absolute paths given to the harnesses below.
FUZZ_FLAGS_cli = -close_fd_mask=3

.PHONY: fuzz fuzz-build fuzz-seeds fuzz-verify valgrind test-fuzz test-clang test-tsan

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

# The whole Keras loader on a file (.h5 or .keras), libhdf5 included, in a
# forked child per input (fuzz/fuzz_keras_h5.c says why and how).
FUZZ_KERAS_LOAD_SRC = quantize/keras/keras_load.c quantize/keras/keras_h5.c quantize/keras/keras_zip.c
$(FUZZ_DIR)/fuzz_keras_h5: fuzz/fuzz_keras_h5.c $(FUZZ_KERAS_LOAD_SRC:%.c=$(FUZZ_DIR)/%.o) $(FUZZ_KERAS_OBJ)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(shell pkg-config --cflags $(HOST_PKGS)) -Iquantize $(FUZZ_SAN) $^ \
	    $(HOST_LDLIBS) -o $@

# edgeq's command line: main() and every command's option parsing, with
# the whole tool and engine linked (fuzz/fuzz_cli.c).
FUZZ_CLI_OBJ = $(filter-out $(FUZZ_DIR)/quantize/cli/edgeq_main.o,$(TOOL_SRC:%.c=$(FUZZ_DIR)/%.o))
$(FUZZ_DIR)/fuzz_cli: fuzz/fuzz_cli.c quantize/cli/edgeq_main.c $(FUZZ_CLI_OBJ) $(FUZZ_ENGINE_OBJ)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(shell pkg-config --cflags $(HOST_PKGS)) -Iquantize $(FUZZ_SAN) \
	    fuzz/fuzz_cli.c $(FUZZ_CLI_OBJ) $(FUZZ_ENGINE_OBJ) $(HOST_LDLIBS) -o $@

# The calibration loaders: .npy arrays and images (PNG, BMP, PGM/PPM).
$(FUZZ_DIR)/fuzz_npy: fuzz/fuzz_npy.c $(FUZZ_DIR)/quantize/io/npy.o $(FUZZ_DIR)/quantize/io/file_util.o $(FUZZ_DIR)/quantize/err.o
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Iquantize $(FUZZ_SAN) $^ -lm -o $@

$(FUZZ_DIR)/fuzz_image: fuzz/fuzz_image.c $(FUZZ_DIR)/quantize/io/image_load.o $(FUZZ_DIR)/quantize/err.o
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Iquantize $(FUZZ_SAN) $^ -lm -o $@

fuzz-build: $(FUZZ_BINS)

# Seed corpora: every model in the shared folder, the zoo and the op fixtures; the
# Keras configs of the fixtures (extracted by fuzz/seeds.py).
fuzz-seeds:
	@mkdir -p $(FUZZ_DIR)/corpus/model $(FUZZ_DIR)/seeds/model
	@find $(SHARED_MODELS) models tests/fixtures/ops tests/fixtures/ops_float tests/regress tests/fuzz/corpus -type f \( -name '*.tflite' -o -name '*.bin' \) \
	    -exec cp -f {} $(FUZZ_DIR)/seeds/model/ \;
	$(PYTHON) fuzz/seeds.py $(FUZZ_DIR)/seeds

FUZZ_ONLY ?= $(FUZZ_HARNESSES)
fuzz: fuzz-build fuzz-seeds
	@for h in $(FUZZ_ONLY); do \
	    mkdir -p $(FUZZ_ABS)/corpus/$$h $(FUZZ_ABS)/artifacts/$$h; \
	    echo "== fuzz_$$h for $(SECONDS) s on $(FUZZ_JOBS) workers"; \
	    $(FUZZ_ABS)/fuzz_$$h $(FUZZ_ABS)/corpus/$$h $(FUZZ_ABS)/seeds/$$h \
	        -max_total_time=$(SECONDS) -fork=$(FUZZ_JOBS) $$(test $$h = keras_h5 && echo "$(FUZZ_IGNORE_keras_h5)") \
	        $$(test $$h = cli && echo "$(FUZZ_FLAGS_cli)") \
	        -max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	        -artifact_prefix=$(FUZZ_ABS)/artifacts/$$h/ \
	        >$(FUZZ_ABS)/fuzz_$$h.log 2>&1; rc=$$?; \
	    grep -h '^#[0-9]*: cov:' $(FUZZ_ABS)/fuzz_$$h.log | tail -1; \
	    ls $(FUZZ_ABS)/artifacts/$$h; \
	    if [ $$rc -ne 0 ]; then echo "fuzz_$$h found a crash: see $(FUZZ_ABS)/artifacts/$$h"; exit 1; fi; \
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

# ---- inside `make test` ----

# The second compiler: GCC's headers and warnings are not clang's (issue 22:
# `make fuzz` stopped building on a size_t only GCC's headers declared).
# One build of the library and the tool, -Werror as in the GCC build.
test-clang:
	$(MAKE) --no-print-directory BUILD=$(BUILD)/clang CC=clang lib tool

# Short fuzz runs: each harness from its seed corpus for a fixed number of
# executions (a fresh corpus each time, fixed seed: the same inputs on
# every run of the same tree), capped in time so a slow box stays under a
# minute per harness. A crash, a sanitizer report, a leak, a hang (over
# -timeout s on one input) or running out of memory exits non-zero and
# fails the suite; the input is in $(FUZZ_DIR)/short/artifacts/<harness>/.
# tests/regress/ and tests/fuzz/corpus/ are replayed through fuzz_model
# first (clang's UBSan checks float-to-int conversions, GCC's does not),
# and tests/regress's images and .npy files through fuzz_image / fuzz_npy.
FUZZ_RUNS_model        ?= 100000
FUZZ_RUNS_keras_config ?= 40000
FUZZ_RUNS_keras_zip    ?= 100000
FUZZ_RUNS_npy          ?= 200000
FUZZ_RUNS_image        ?= 100000
FUZZ_RUNS_cli          ?= 50000
FUZZ_SHORT_SECONDS     ?= 50
test-fuzz: fuzz-build fuzz-seeds
	@set -e; echo "== replay tests/regress tests/fuzz/corpus through fuzz_model"; \
	    $(FUZZ_DIR)/fuzz_model -timeout=10 -rss_limit_mb=2048 tests/regress/* tests/fuzz/corpus/* \
	        >$(FUZZ_DIR)/replay.log 2>&1 || { tail -40 $(FUZZ_DIR)/replay.log; exit 1; }
	@set -e; for h in image:'pgm ppm png bmp' npy:npy; do \
	    files=$$(for e in $${h#*:}; do ls tests/regress/*.$$e 2>/dev/null || true; done); \
	    test -z "$$files" || $(FUZZ_DIR)/fuzz_$${h%%:*} $$files >$(FUZZ_DIR)/replay_$${h%%:*}.log 2>&1 || \
	        { tail -40 $(FUZZ_DIR)/replay_$${h%%:*}.log; exit 1; }; \
	done
	@for h in $(FUZZ_SHORT_HARNESSES); do \
	    c=$(FUZZ_ABS)/short/corpus/$$h; a=$(FUZZ_ABS)/short/artifacts/$$h; log=$(FUZZ_ABS)/short/fuzz_$$h.log; \
	    rm -rf $$c $$a; mkdir -p $$c $$a; \
	    runs=$$(case $$h in model) echo $(FUZZ_RUNS_model);; keras_config) echo $(FUZZ_RUNS_keras_config);; \
	        keras_zip) echo $(FUZZ_RUNS_keras_zip);; npy) echo $(FUZZ_RUNS_npy);; image) echo $(FUZZ_RUNS_image);; cli) echo $(FUZZ_RUNS_cli);; \
        *) echo 20000;; esac); \
	    $(FUZZ_ABS)/fuzz_$$h $$c $(FUZZ_ABS)/seeds/$$h -runs=$$runs -seed=1 $$(test $$h = cli && echo "$(FUZZ_FLAGS_cli)") \
	        -max_total_time=$(FUZZ_SHORT_SECONDS) -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
	        -print_final_stats=1 -artifact_prefix=$$a/ >$$log 2>&1; rc=$$?; \
	    printf '== fuzz_%-14s %s execs, %s\n' $$h "$$(sed -n 's/^stat::number_of_executed_units: *//p' $$log)" \
	        "$$(grep -o 'cov: [0-9]* ft: [0-9]*' $$log | tail -1)"; \
	    if [ $$rc -ne 0 ]; then tail -40 $$log; echo "fuzz_$$h failed (exit $$rc): input in $$a"; exit 1; fi; \
	done

# Concurrency: the engine promises no global state, so separate contexts
# and arenas may run at once. tests/concurrency/threads.c loads the zoo's
# models and the op fixtures, records each one's outputs single-threaded,
# then has TSAN_THREADS threads load and invoke them all at once (their
# own edge_model, arena and packed weights each), comparing every output.
# The engine is compiled into the test with -fsanitize=thread (clang); a
# race, or an output that differs, fails the suite.
TSAN_DIR     = $(BUILD)/tsan
TSAN_THREADS ?= 4
TSAN_ROUNDS  ?= 2
TSAN_MODELS  ?= $(wildcard models/*/*_int8.tflite) $(wildcard tests/fixtures/ops/*.tflite tests/fixtures/ops_float/*.tflite)
# Two builds: the CPU's best x86 kernels, and the AVX2 ones (whose
# convolutions pack weights once per context: edge_model_pack).
TSAN_CFLAGS = -std=c11 -O1 -g -fsanitize=thread -fno-omit-frame-pointer -Iengine/include -Iengine/src \
              -D_POSIX_C_SOURCE=200809L
$(TSAN_DIR)/threads: tests/concurrency/threads.c $(ENGINE_SRC) $(ENGINE_HDR)
	@mkdir -p $(dir $@)
	@echo "$(FUZZ_CC) -fsanitize=thread tests/concurrency/threads.c + the engine -> $@"
	@$(FUZZ_CC) $(TSAN_CFLAGS) tests/concurrency/threads.c $(ENGINE_SRC) -lpthread -lm -o $@
$(TSAN_DIR)/threads_avx2: tests/concurrency/threads.c $(ENGINE_SRC) $(ENGINE_HDR)
	@mkdir -p $(dir $@)
	@echo "$(FUZZ_CC) -fsanitize=thread -DEDGE_X86_MAX_LEVEL=1 tests/concurrency/threads.c + the engine -> $@"
	@$(FUZZ_CC) $(TSAN_CFLAGS) -DEDGE_X86_MAX_LEVEL=1 tests/concurrency/threads.c $(ENGINE_SRC) -lpthread -lm -o $@

test-tsan: $(TSAN_DIR)/threads $(TSAN_DIR)/threads_avx2
	@for t in threads threads_avx2; do \
	    echo "== $(TSAN_DIR)/$$t -t $(TSAN_THREADS) -r $(TSAN_ROUNDS) ($(words $(TSAN_MODELS)) models)"; \
	    TSAN_OPTIONS="halt_on_error=1 exitcode=66" $(TSAN_DIR)/$$t -t $(TSAN_THREADS) -r $(TSAN_ROUNDS) \
	        $(TSAN_MODELS) 2>$(TSAN_DIR)/$$t.log || { tail -60 $(TSAN_DIR)/$$t.log; exit 1; }; \
	    echo "$$(grep -c '^skipped' $(TSAN_DIR)/$$t.log) files skipped (refused alone; see $(TSAN_DIR)/$$t.log)"; \
	done
