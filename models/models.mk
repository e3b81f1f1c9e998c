# SPDX-License-Identifier: Apache-2.0
# models/models.mk — the model zoo (models/README.md). Included by the
# top-level Makefile after boards/boards.mk; uses its CC, PYTHON, BUILD,
# HOST_CFLAGS and the host classify from boards/host.
#
#   make quickstart            quantize models/mnist_cnn with edgeq, then
#                              classify a held-out sample image with it
#   make quickstart ZOO_MODEL=mnist_mobilenet ZOO_SAMPLE=3
#   make models-eval           quantize every model, measure float / engine
#                              int8 / TF int8 accuracy, rewrite the cards
#                              (needs tensorflow: tests/requirements-gen.txt)
#   make models-train          retrain every model (tensorflow, npm, ../shared)
#   make models-test           the zoo's tests (tests/models)
#   make models-bf16           every model as bf16 (--dtype bf16) into
#                              build/zoo_bf16/, each checked on the engine
#                              against the float model on its calibration set
#
# (Variables are ZOO_*: bench.mk reads MODELS.)

ZOO_MODEL  ?= mnist_cnn
ZOO_SAMPLE ?= 7
ZOO_OUT    := $(BUILD)/quickstart
ZOO_RUNNER := $(BUILD)/models/batch_run
ZOO_CALIB   = $(if $(filter digits_%,$(ZOO_MODEL)),models/calib/digits,models/calib/mnist)
ZOO_SRC     = $(firstword $(wildcard models/$(ZOO_MODEL)/$(ZOO_MODEL).h5 models/$(ZOO_MODEL)/$(ZOO_MODEL).keras))

ZOO_ALL      = mnist_cnn mnist_mobilenet digits_resnet iris_mlp
ZOO_BF16_OUT = $(BUILD)/zoo_bf16

.PHONY: quickstart models-eval models-train models-test zoo-runner models-bf16

zoo-runner: $(ZOO_RUNNER)

$(ZOO_RUNNER): models/tools/batch_run.c $(BUILD)/libedge.a engine/include/edge/edge.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) models/tools/batch_run.c \
	    -Wl,--whole-archive $(BUILD)/libedge.a -Wl,--no-whole-archive -lm -o $@

quickstart: $(BUILD)/edgeq $(BUILD)/host/classify
	@mkdir -p $(ZOO_OUT)
	$(BUILD)/edgeq $(ZOO_SRC) $(ZOO_OUT)/$(ZOO_MODEL).tflite --calib $(ZOO_CALIB)
	$(BUILD)/host/classify $(ZOO_OUT)/$(ZOO_MODEL).tflite models/$(ZOO_MODEL)/sample_$(ZOO_SAMPLE).pgm \
	    --labels models/$(ZOO_MODEL)/labels.txt --top 3

models-eval: $(BUILD)/edgeq $(ZOO_RUNNER)
	$(PYTHON) models/evaluate.py

models-train:
	$(PYTHON) models/train.py

models-test: $(BUILD)/edgeq $(BUILD)/host/classify $(ZOO_RUNNER)
	$(PYTHON) -m pytest -q tests/models

models-bf16: $(BUILD)/edgeq
	@mkdir -p $(ZOO_BF16_OUT)
	@set -e; for m in $(ZOO_ALL); do \
	    $(BUILD)/edgeq $$(ls models/$$m/$$m.h5 models/$$m/$$m.keras 2>/dev/null | head -n1) \
	        $(ZOO_BF16_OUT)/$${m}_bf16.tflite --dtype bf16 -q \
	        --calib $$(case $$m in digits_*) echo models/calib/digits;; iris_*) echo models/calib/iris.npy;; *) echo models/calib/mnist;; esac) \
	        --report $(ZOO_BF16_OUT)/$${m}_bf16.json; \
	    echo "$(ZOO_BF16_OUT)/$${m}_bf16.tflite"; done
