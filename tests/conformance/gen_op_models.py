#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generate the per-op conformance fixtures in tests/fixtures/ops/.

Run by hand (not in CI): it needs tensorflow-cpu and keras
(tests/requirements-gen.txt). Every fixture is a single-op (or tiny)
tf.function converted by the official TFLiteConverter to full integer
quantization with a seeded representative dataset, so the files are
reproducible and made by the same tool that makes real users' models.

    python3 tests/conformance/gen_op_models.py            # all fixtures
    python3 tests/conformance/gen_op_models.py -k conv    # names containing "conv"
    python3 tests/conformance/gen_op_models.py --list     # names only

Writes tests/fixtures/ops/<name>.tflite and tests/fixtures/ops/MANIFEST.json
(fixture name, the op it targets, its parameters, I/O type, quantization
granularity, the ops the converter actually emitted, float input ranges,
sha256, and the TensorFlow/Keras versions used). Each fixture is checked
after conversion: it must load in ai-edge-litert's reference resolver and
contain the op it targets, and every op in it must be in the engine's list.
A fixture that fails those checks aborts the run (nothing is written for it).
"""

import argparse
import hashlib
import json
import os
import sys
import warnings
import zlib

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
warnings.filterwarnings("ignore")

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
OUT_DIR = os.path.join(REPO, "tests", "fixtures", "ops")

sys.path.insert(0, HERE)
import oracle  # noqa: E402

REP_SAMPLES = 64


def seed_of(name):
    return zlib.crc32(name.encode()) & 0x7FFFFFFF


class Spec:
    """One fixture: a float function plus how to quantize it."""

    def __init__(self, name, op, params, fn, in_shapes, ranges=None, io="int8",
                 per_channel=True, patch=None, note=None, batch_none=False):
        self.name = name
        self.batch_none = batch_none  # signature batch None: the converter's dynamic-batch ops
        self.op = op
        self.params = params
        self.fn = fn  # fn(rng) -> python callable on tf tensors (weights drawn from rng)
        self.in_shapes = [list(s) for s in in_shapes]
        self.ranges = ranges or [(-1.0, 1.0)] * len(in_shapes)
        self.io = io
        self.per_channel = per_channel
        self.patch = patch  # patch(model_t) -> None: edit options after conversion
        self.note = note


def convert(spec):
    import tensorflow as tf

    rng = np.random.default_rng(seed_of(spec.name))
    body = spec.fn(rng)
    if spec.io == "int32":  # an integer graph: converted as it is, nothing to quantize
        sig = [tf.TensorSpec(s, tf.int32) for s in spec.in_shapes]
        fn = tf.function(body, input_signature=sig, autograph=False)
        conv = tf.lite.TFLiteConverter.from_concrete_functions([fn.get_concrete_function()], fn)
        return conv.convert()
    sig = [tf.TensorSpec([None] + s[1:] if spec.batch_none else s, tf.float32) for s in spec.in_shapes]
    fn = tf.function(body, input_signature=sig, autograph=False)
    cf = fn.get_concrete_function()

    def rep():
        r = np.random.default_rng(seed_of(spec.name) + 1)
        for i in range(REP_SAMPLES):
            xs = []
            for s, (lo, hi) in zip(spec.in_shapes, spec.ranges):
                x = r.uniform(lo, hi, size=s).astype(np.float32)
                if i == 0:  # make sure the calibrated range reaches both ends
                    x.flat[0] = lo
                    x.flat[-1] = hi
                xs.append(x)
            yield xs

    conv = tf.lite.TFLiteConverter.from_concrete_functions([cf], fn)
    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    conv.representative_dataset = rep
    conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    if spec.io == "int16":  # the 16x8 mode: int16 activations, int8 weights
        conv.target_spec.supported_ops = [
            tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8]
    io_type = {"int8": tf.int8, "uint8": tf.uint8, "float": tf.float32, "int16": tf.int16}[spec.io]
    conv.inference_input_type = io_type
    conv.inference_output_type = io_type
    if not spec.per_channel:
        conv._experimental_disable_per_channel = True
    data = conv.convert()
    if spec.patch is not None:
        data = patch_model(data, spec.patch)
    return data


def patch_model(data, fn):
    import flatbuffers
    from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as S

    m = S.ModelT.InitFromPackedBuf(bytearray(data), 0)
    fn(m)
    b = flatbuffers.Builder(len(data) + 1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def reshape_to_squeeze(dims):
    """A patch that turns the converter's RESHAPE into SQUEEZE(squeeze_dims):
    the converter always lowers tf.squeeze to RESHAPE, but older (TOCO)
    models, like several in ../shared/models, carry real SQUEEZE ops."""

    def patch(m):
        from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as S

        code = S.OperatorCodeT()
        code.builtinCode = S.BuiltinOperator.SQUEEZE
        code.deprecatedBuiltinCode = S.BuiltinOperator.SQUEEZE
        code.version = 1
        m.operatorCodes.append(code)
        idx = len(m.operatorCodes) - 1
        names = [oracle.builtin_name(oc) for oc in m.operatorCodes]
        n = 0
        for op in m.subgraphs[0].operators:
            if names[op.opcodeIndex] == "RESHAPE":
                op.opcodeIndex = idx
                op.inputs = op.inputs[:1]
                opts = S.SqueezeOptionsT()
                opts.squeezeDims = list(dims)
                op.builtinOptionsType = S.BuiltinOptions.SqueezeOptions
                op.builtinOptions = opts
                n += 1
        if n != 1:
            raise RuntimeError("patch: expected one RESHAPE, found %d" % n)

    return patch


def set_option(op_name, field, value):
    """A patch that sets one builtin option field on every `op_name` op."""

    def patch(m):
        codes = [oracle.builtin_name(oc) for oc in m.operatorCodes]
        n = 0
        for op in m.subgraphs[0].operators:
            if codes[op.opcodeIndex] == op_name:
                setattr(op.builtinOptions, field, value)
                n += 1
        if n == 0:
            raise RuntimeError("patch: no %s op to set %s on" % (op_name, field))

    return patch


# --------------------------------------------------------------------------
# fixture catalogue


def w_normal(rng, shape, scale=0.3):
    return (rng.normal(size=shape) * scale).astype(np.float32)


def act_fn(act):
    import tensorflow as tf

    return {
        "none": lambda y: y,
        "relu": tf.nn.relu,
        "relu6": tf.nn.relu6,
        "relu_n1_to_1": lambda y: tf.clip_by_value(y, -1.0, 1.0),
    }[act]


def conv2d_spec(name, k=(3, 3), s=(1, 1), pad="SAME", dil=(1, 1), act="none", cin=4, cout=8,
                hw=(9, 9), batch=1, bias=True, io="int8", per_channel=True):
    import tensorflow as tf

    def fn(rng):
        w = w_normal(rng, (k[0], k[1], cin, cout), 0.5 / np.sqrt(k[0] * k[1] * cin) * 2)
        b = w_normal(rng, (cout,), 0.2)
        a = act_fn(act)

        def body(x):
            y = tf.nn.conv2d(x, w, strides=[1, s[0], s[1], 1], padding=pad,
                             dilations=[1, dil[0], dil[1], 1])
            if bias:
                y = y + b
            return a(y)

        return body

    params = dict(kernel=list(k), stride=list(s), padding=pad, dilation=list(dil),
                  activation=act, in_channels=cin, out_channels=cout, input_hw=list(hw),
                  batch=batch, bias=bias)
    return Spec(name, "CONV_2D", params, fn, [[batch, hw[0], hw[1], cin]], io=io,
                per_channel=per_channel)


def dw_spec(name, k=(3, 3), s=(1, 1), pad="SAME", dil=(1, 1), mult=1, act="none", cin=4,
            hw=(9, 9), io="int8", per_channel=True):
    import tensorflow as tf

    def fn(rng):
        w = w_normal(rng, (k[0], k[1], cin, mult), 1.0 / np.sqrt(k[0] * k[1]))
        b = w_normal(rng, (cin * mult,), 0.2)
        a = act_fn(act)

        def body(x):
            y = tf.raw_ops.DepthwiseConv2dNative(
                input=x, filter=w, strides=[1, s[0], s[1], 1], padding=pad,
                dilations=[1, dil[0], dil[1], 1])
            return a(y + b)

        return body

    params = dict(kernel=list(k), stride=list(s), padding=pad, dilation=list(dil),
                  depth_multiplier=mult, activation=act, in_channels=cin, input_hw=list(hw))
    return Spec(name, "DEPTHWISE_CONV_2D", params, fn, [[1, hw[0], hw[1], cin]], io=io,
                per_channel=per_channel)


def fc_spec(name, in_shape=(1, 16), units=8, bias=True, act="none", io="int8",
            per_channel=True, keep_num_dims=False):
    import tensorflow as tf

    def fn(rng):
        n_in = in_shape[-1]
        w = w_normal(rng, (n_in, units), 1.0 / np.sqrt(n_in))
        b = w_normal(rng, (units,), 0.2)
        a = act_fn(act)

        def body(x):
            if keep_num_dims:
                y = tf.tensordot(x, w, axes=[[len(in_shape) - 1], [0]])
            else:
                y = tf.matmul(x, w)
            if bias:
                y = y + b
            return a(y)

        return body

    params = dict(input_shape=list(in_shape), units=units, bias=bias, activation=act,
                  keep_num_dims=keep_num_dims)
    return Spec(name, "FULLY_CONNECTED", params, fn, [list(in_shape)], io=io,
                per_channel=per_channel)


def binary_spec(name, op, sa, sb, ra=(-1.0, 1.0), rb=(-1.0, 1.0), act="none", const_b=False,
                io="int8"):
    import tensorflow as tf

    f = {"ADD": tf.add, "SUB": tf.subtract, "MUL": tf.multiply, "MAXIMUM": tf.maximum,
         "MINIMUM": tf.minimum}[op]

    def fn(rng):
        a = act_fn(act)
        if const_b:
            cb = rng.uniform(rb[0], rb[1], size=sb).astype(np.float32)
            return lambda x: a(f(x, cb))
        return lambda x, y: a(f(x, y))

    params = dict(shape_a=list(sa), shape_b=list(sb), range_a=list(ra), range_b=list(rb),
                  activation=act, constant_b=const_b)
    shapes = [sa] if const_b else [sa, sb]
    ranges = [ra] if const_b else [ra, rb]
    return Spec(name, op, params, fn, shapes, ranges=ranges, io=io)


def pool_spec(name, op, k, s, pad, hw=(8, 8), c=4, act="none", io="int8"):
    import tensorflow as tf

    pool = tf.nn.avg_pool2d if op == "AVERAGE_POOL_2D" else tf.nn.max_pool2d

    def fn(rng):
        a = act_fn(act)
        return lambda x: a(pool(x, ksize=list(k), strides=list(s), padding=pad))

    params = dict(filter=list(k), stride=list(s), padding=pad, input_hw=list(hw), channels=c,
                  activation=act)
    return Spec(name, op, params, fn, [[1, hw[0], hw[1], c]], ranges=[(-3.0, 5.0)], io=io)


def unary_spec(name, op, shape, rng_in, body_fn, params=None, io="int8", patch=None):
    def fn(rng):
        return body_fn

    p = dict(shape=list(shape), input_range=list(rng_in))
    p.update(params or {})
    return Spec(name, op, p, fn, [list(shape)], ranges=[rng_in], io=io, patch=patch)


def catalogue():
    import tensorflow as tf

    specs = []
    add = specs.append

    # ---------------- CONV_2D
    for k in (1, 3, 5):
        for s in (1, 2):
            for pad in ("SAME", "VALID"):
                add(conv2d_spec("conv_k%d_s%d_%s" % (k, s, pad.lower()), k=(k, k), s=(s, s),
                                pad=pad))
    for pad in ("SAME", "VALID"):
        add(conv2d_spec("conv_k3_d2_%s" % pad.lower(), dil=(2, 2), pad=pad, hw=(11, 11)))
    add(conv2d_spec("conv_k3_d21_same", dil=(2, 1), pad="SAME", hw=(10, 7)))
    for act in ("relu", "relu6", "relu_n1_to_1"):
        add(conv2d_spec("conv_k3_s1_same_%s" % act, act=act))
    add(conv2d_spec("conv_k1x3_s21_same_rect", k=(1, 3), s=(2, 1), hw=(7, 10)))
    add(conv2d_spec("conv_k3x2_s12_valid_rect", k=(3, 2), s=(1, 2), pad="VALID", hw=(8, 11)))
    add(conv2d_spec("conv_k3_s2_same_evenhw", s=(2, 2), hw=(8, 8)))
    add(conv2d_spec("conv_k3_nobias", bias=False))
    add(conv2d_spec("conv_k3_cin1", cin=1, cout=8))
    add(conv2d_spec("conv_k3_cin3_s2_relu6", cin=3, cout=16, s=(2, 2), act="relu6", hw=(12, 12)))
    add(conv2d_spec("conv_k3_c16x32", cin=16, cout=32, hw=(6, 6)))
    # 1-3 input channels (the x86 first-layer path: whole taps per word,
    # image-edge words assembled byte by byte).
    add(conv2d_spec("conv_small_cin2_d2_valid", cin=2, cout=5, dil=(2, 2), pad="VALID", hw=(11, 11)))
    add(conv2d_spec("conv_small_cin1_k3x5_s21_same", k=(3, 5), s=(2, 1), cin=1, cout=17, hw=(13, 10)))
    add(conv2d_spec("conv_small_cin1_k3_valid", cin=1, cout=8, pad="VALID", hw=(7, 9)))
    add(conv2d_spec("conv_small_cin3_d12_same_b2", cin=3, cout=20, dil=(1, 2), batch=2, hw=(9, 10)))
    add(conv2d_spec("conv_k3_batch2", batch=2))
    add(conv2d_spec("conv_k3_pertensor", per_channel=False))
    add(conv2d_spec("conv_k3_s2_valid_relu_pertensor", s=(2, 2), pad="VALID", act="relu",
                    per_channel=False))
    add(conv2d_spec("conv_k3_uint8io", io="uint8"))
    add(conv2d_spec("conv_k3_relu_floatio", act="relu", io="float"))

    # ---------------- DEPTHWISE_CONV_2D
    for mult in (1, 2, 3):
        for s in (1, 2):
            for pad in ("SAME", "VALID"):
                if mult == 3 and pad == "SAME" and s == 2:
                    continue
                add(dw_spec("dw_m%d_s%d_%s" % (mult, s, pad.lower()), mult=mult, s=(s, s),
                            pad=pad))
    add(dw_spec("dw_m1_d2_same", dil=(2, 2), hw=(11, 11)))
    add(dw_spec("dw_m2_d2_valid", mult=2, dil=(2, 2), pad="VALID", hw=(11, 11)))
    add(dw_spec("dw_k5_m1_s1_same", k=(5, 5)))
    add(dw_spec("dw_k3x1_s21_rect", k=(3, 1), s=(2, 1), hw=(9, 6)))
    for act in ("relu", "relu6", "relu_n1_to_1"):
        add(dw_spec("dw_m1_s1_same_%s" % act, act=act))
    add(dw_spec("dw_m1_c16", cin=16, hw=(6, 6)))
    add(dw_spec("dw_m1_pertensor", per_channel=False))
    add(dw_spec("dw_m2_s2_relu6_pertensor", mult=2, s=(2, 2), act="relu6", per_channel=False))
    add(dw_spec("dw_m1_uint8io", io="uint8"))

    # ---------------- FULLY_CONNECTED
    add(fc_spec("fc_16x8"))
    add(fc_spec("fc_16x8_nobias", bias=False))
    add(fc_spec("fc_16x8_relu", act="relu"))
    add(fc_spec("fc_16x8_relu6", act="relu6"))
    add(fc_spec("fc_64x32", in_shape=(1, 64), units=32))
    add(fc_spec("fc_batch4", in_shape=(4, 16), units=8))
    add(fc_spec("fc_keepdims_3d", in_shape=(1, 3, 16), units=8, keep_num_dims=True))
    add(fc_spec("fc_16x8_pertensor", per_channel=False))
    add(fc_spec("fc_16x8_uint8io", io="uint8"))
    add(fc_spec("fc_16x8_floatio", io="float"))

    # ---------------- ADD / SUB / MUL
    for op in ("ADD", "SUB", "MUL"):
        p = op.lower()
        add(binary_spec("%s_same" % p, op, (1, 4, 4, 8), (1, 4, 4, 8)))
        add(binary_spec("%s_scaled" % p, op, (1, 4, 4, 8), (1, 4, 4, 8), ra=(-0.5, 0.25),
                        rb=(-6.0, 10.0)))
        add(binary_spec("%s_bcast_c" % p, op, (1, 4, 4, 8), (1, 1, 1, 8), rb=(-2.0, 2.0)))
        add(binary_spec("%s_bcast_hw1" % p, op, (1, 4, 4, 8), (1, 4, 4, 1)))
        add(binary_spec("%s_bcast_both" % p, op, (1, 4, 1, 8), (1, 1, 5, 8), ra=(-3.0, 1.0)))
        add(binary_spec("%s_bcast_rank" % p, op, (2, 3, 8), (8,)))
        add(binary_spec("%s_relu" % p, op, (1, 4, 4, 8), (1, 4, 4, 8), act="relu"))
        add(binary_spec("%s_const" % p, op, (1, 4, 4, 8), (1, 1, 4, 8), rb=(-1.5, 0.5),
                        const_b=True))
    add(binary_spec("add_relu6", "ADD", (1, 6, 6, 4), (1, 6, 6, 4), ra=(-4.0, 4.0), act="relu6"))
    # MAXIMUM / MINIMUM (docs/adding-an-op.md's worked example): int8, the
    # 16x8 mode's int16, and a plain int32 graph, with broadcasting.
    for op in ("MAXIMUM", "MINIMUM"):
        p = op.lower()
        add(binary_spec("%s_same" % p, op, (1, 4, 4, 8), (1, 4, 4, 8)))
        add(binary_spec("%s_bcast_c" % p, op, (1, 4, 4, 8), (1, 1, 1, 8), rb=(-2.0, 2.0)))
        add(binary_spec("%s_bcast_both" % p, op, (1, 4, 1, 8), (1, 1, 5, 8), ra=(-3.0, 1.0)))
        add(binary_spec("%s_bcast_rank" % p, op, (2, 3, 8), (8,)))
        add(binary_spec("%s_const" % p, op, (1, 4, 4, 8), (1, 1, 4, 8), rb=(-1.5, 0.5), const_b=True))
        add(binary_spec("%s_int16" % p, op, (1, 4, 4, 8), (1, 1, 1, 8), rb=(-2.0, 2.0), io="int16"))
        add(binary_spec("%s_int32" % p, op, (2, 3, 8), (8,), io="int32"))
    add(binary_spec("mul_relu6", "MUL", (1, 6, 6, 4), (1, 6, 6, 4), ra=(-4.0, 4.0),
                    rb=(-2.0, 2.0), act="relu6"))
    add(binary_spec("add_uint8io", "ADD", (1, 4, 4, 8), (1, 4, 4, 8), rb=(-3.0, 3.0), io="uint8"))
    add(binary_spec("add_floatio", "ADD", (1, 4, 4, 8), (1, 4, 4, 8), rb=(-3.0, 3.0), io="float"))
    add(binary_spec("mul_5d", "MUL", (2, 1, 3, 2, 4), (1, 2, 1, 2, 4)))

    # ---------------- pooling
    for op, p in (("AVERAGE_POOL_2D", "avgpool"), ("MAX_POOL_2D", "maxpool")):
        add(pool_spec("%s_2x2_s2_valid" % p, op, (2, 2), (2, 2), "VALID"))
        add(pool_spec("%s_3x3_s2_same" % p, op, (3, 3), (2, 2), "SAME"))
        add(pool_spec("%s_3x3_s1_same" % p, op, (3, 3), (1, 1), "SAME"))
        add(pool_spec("%s_2x2_s1_valid" % p, op, (2, 2), (1, 1), "VALID"))
        add(pool_spec("%s_3x2_s21_same_rect" % p, op, (3, 2), (2, 1), "SAME", hw=(7, 9)))
        add(pool_spec("%s_global_5x5" % p, op, (5, 5), (1, 1), "VALID", hw=(5, 5), c=8))
        add(pool_spec("%s_2x2_s2_same_odd" % p, op, (2, 2), (2, 2), "SAME", hw=(7, 7)))
        add(pool_spec("%s_2x2_s2_relu" % p, op, (2, 2), (2, 2), "VALID", act="relu"))
    add(pool_spec("avgpool_3x3_s2_relu6", "AVERAGE_POOL_2D", (3, 3), (2, 2), "SAME", act="relu6"))
    add(pool_spec("avgpool_global_12x12", "AVERAGE_POOL_2D", (12, 12), (1, 1), "VALID",
                  hw=(12, 12), c=3))
    add(pool_spec("maxpool_2x2_uint8io", "MAX_POOL_2D", (2, 2), (2, 2), "VALID", io="uint8"))

    # ---------------- MEAN
    for axes, keep, shape in (([1, 2], True, (1, 5, 5, 8)), ([1, 2], False, (1, 5, 5, 8)),
                              ([3], True, (1, 4, 4, 6)), ([1], False, (1, 6, 3, 4)),
                              ([2], True, (2, 3, 7, 4)), ([1, 2, 3], False, (1, 3, 3, 4)),
                              ([-1], False, (3, 10))):
        name = "mean_ax%s_%s_%s" % ("".join(str(a).replace("-", "m") for a in axes),
                                    "keep" if keep else "drop",
                                    "x".join(str(d) for d in shape))

        def body_mean(x, axes=axes, keep=keep):
            return tf.reduce_mean(x, axis=axes, keepdims=keep)

        add(unary_spec(name, "MEAN", shape, (-2.0, 3.0), body_mean,
                       params=dict(axes=axes, keepdims=keep)))

    # ---------------- SOFTMAX
    add(unary_spec("softmax_10", "SOFTMAX", (1, 10), (-4.0, 4.0), tf.nn.softmax,
                   params=dict(beta=1.0)))
    add(unary_spec("softmax_4d_last", "SOFTMAX", (1, 3, 3, 8), (-6.0, 2.0), tf.nn.softmax,
                   params=dict(beta=1.0)))
    add(unary_spec("softmax_batch3_wide", "SOFTMAX", (3, 40), (-10.0, 10.0), tf.nn.softmax,
                   params=dict(beta=1.0)))
    add(unary_spec("softmax_small_range", "SOFTMAX", (1, 12), (-0.5, 0.5), tf.nn.softmax,
                   params=dict(beta=1.0)))
    add(unary_spec("softmax_beta0p5", "SOFTMAX", (1, 10), (-4.0, 4.0), tf.nn.softmax,
                   params=dict(beta=0.5), patch=set_option("SOFTMAX", "beta", 0.5)))
    add(unary_spec("softmax_beta2", "SOFTMAX", (2, 6), (-3.0, 3.0), tf.nn.softmax,
                   params=dict(beta=2.0), patch=set_option("SOFTMAX", "beta", 2.0)))
    add(unary_spec("softmax_uint8io", "SOFTMAX", (1, 10), (-4.0, 4.0), tf.nn.softmax,
                   params=dict(beta=1.0), io="uint8"))

    # ---------------- elementwise activations
    for op, f, ranges in (("LOGISTIC", tf.sigmoid, [(-1.0, 1.0), (-8.0, 8.0), (-3.0, 10.0)]),
                          ("TANH", tf.tanh, [(-1.0, 1.0), (-6.0, 6.0), (-0.2, 4.0)])):
        for lo, hi in ranges:
            add(unary_spec("%s_r%g_%g" % (op.lower(), lo, hi), op, (1, 64), (lo, hi), f))
    add(unary_spec("logistic_uint8io", "LOGISTIC", (1, 64), (-6.0, 6.0), tf.sigmoid, io="uint8"))
    add(unary_spec("tanh_floatio", "TANH", (1, 64), (-4.0, 4.0), tf.tanh, io="float"))

    def hswish(x):
        return x * tf.nn.relu6(x + 3.0) / 6.0

    for lo, hi in ((-4.0, 4.0), (-8.0, 8.0), (-1.0, 6.0), (-0.5, 0.5)):
        add(unary_spec("hardswish_r%g_%g" % (lo, hi), "HARD_SWISH", (1, 8, 8, 2), (lo, hi), hswish))

    for lo, hi in ((-2.0, 2.0), (-0.5, 6.0), (-10.0, 3.0)):
        add(unary_spec("relu_r%g_%g" % (lo, hi), "RELU", (1, 64), (lo, hi), tf.nn.relu))
    for lo, hi in ((-2.0, 8.0), (-1.0, 4.0), (-12.0, 12.0)):
        add(unary_spec("relu6_r%g_%g" % (lo, hi), "RELU6", (1, 64), (lo, hi), tf.nn.relu6))
    for alpha in (0.2, 0.01, 0.5, 1.5):
        def lrelu(x, alpha=alpha):
            return tf.nn.leaky_relu(x, alpha=alpha)

        add(unary_spec("leakyrelu_a%g" % alpha, "LEAKY_RELU", (1, 64), (-3.0, 2.0), lrelu,
                       params=dict(alpha=alpha)))

    # ---------------- PAD
    for name, shape, pads in (("pad_hw11", (1, 4, 4, 3), [[0, 0], [1, 1], [1, 1], [0, 0]]),
                              ("pad_hw_asym", (1, 4, 5, 3), [[0, 0], [0, 2], [3, 0], [0, 0]]),
                              ("pad_channels", (1, 3, 3, 4), [[0, 0], [0, 0], [0, 0], [2, 1]]),
                              ("pad_batch", (1, 2, 2, 2), [[1, 0], [0, 1], [0, 0], [0, 0]]),
                              ("pad_2d", (3, 5), [[1, 2], [2, 1]])):
        def body_pad(x, pads=pads):
            return tf.pad(x, pads)

        add(unary_spec(name, "PAD", shape, (-1.0, 3.0), body_pad, params=dict(paddings=pads)))

    # ---------------- CONCATENATION
    def concat_spec(name, shapes, axis, ranges, pre=None):
        def fn(rng):
            def body(*xs):
                if pre is not None:
                    xs = pre(xs)
                return tf.concat(list(xs), axis=axis)

            return body

        return Spec(name, "CONCATENATION", dict(shapes=[list(s) for s in shapes], axis=axis,
                                                ranges=[list(r) for r in ranges],
                                                preprocess=pre is not None),
                    fn, shapes, ranges=ranges)

    add(concat_spec("concat_c_2", [(1, 4, 4, 3), (1, 4, 4, 5)], 3, [(-1.0, 1.0), (-5.0, 3.0)]))
    add(concat_spec("concat_h_2", [(1, 2, 4, 3), (1, 3, 4, 3)], 1, [(-1.0, 1.0), (-1.0, 1.0)]))
    add(concat_spec("concat_w_3", [(1, 3, 1, 2), (1, 3, 2, 2), (1, 3, 3, 2)], 2,
                    [(-1.0, 1.0), (0.0, 2.0), (-4.0, 0.5)]))
    add(concat_spec("concat_neg1_3", [(2, 4), (2, 1), (2, 7)], -1,
                    [(-1.0, 1.0), (-2.0, 2.0), (-0.5, 0.5)]))
    add(concat_spec("concat_axis0", [(1, 6), (3, 6)], 0, [(-1.0, 1.0), (-1.0, 1.0)]))
    # inputs coming from ops with their own scales: the converter requantizes
    add(concat_spec("concat_c_relu_tanh", [(1, 4, 4, 3), (1, 4, 4, 3)], 3,
                    [(-3.0, 3.0), (-3.0, 3.0)],
                    pre=lambda xs: (tf.nn.relu(xs[0]), tf.tanh(xs[1]))))

    # ---------------- STRIDED_SLICE
    def ss(name, shape, begin, end, strides, **masks):
        def body(x):
            return tf.strided_slice(x, begin, end, strides, **masks)

        p = dict(begin=begin, end=end, strides=strides)
        p.update(masks)
        return unary_spec(name, "STRIDED_SLICE", shape, (-2.0, 2.0), body, params=p)

    add(ss("ss_basic_4d", (1, 6, 6, 4), [0, 1, 2, 0], [1, 5, 6, 3], [1, 1, 2, 1]))
    add(ss("ss_stride2", (1, 7, 7, 4), [0, 0, 1, 0], [1, 7, 7, 4], [1, 2, 2, 1]))
    add(ss("ss_masks", (1, 6, 6, 4), [0, 2, 0, 1], [0, 0, 4, 0], [1, 1, 1, 1],
           begin_mask=0b1001, end_mask=0b1011))
    add(ss("ss_neg_stride", (1, 6, 8), [0, 5, 7], [1, 0, 0], [1, -1, -2], end_mask=0b110))
    add(ss("ss_neg_index", (2, 10), [0, -6], [2, -1], [1, 1]))
    add(ss("ss_shrink", (1, 6, 4), [0, 2, 0], [1, 3, 4], [1, 1, 1], shrink_axis_mask=0b010))
    add(ss("ss_2d_stride3", (5, 12), [1, 0], [5, 12], [2, 3]))

    # ---------------- RESHAPE / SQUEEZE
    add(unary_spec("reshape_flatten", "RESHAPE", (1, 4, 4, 8), (-1.0, 1.0),
                   lambda x: tf.reshape(x, [1, 128]), params=dict(new_shape=[1, 128])))
    add(unary_spec("reshape_to_3d", "RESHAPE", (1, 128), (-1.0, 1.0),
                   lambda x: tf.reshape(x, [2, 8, 8]), params=dict(new_shape=[2, 8, 8])))
    add(unary_spec("reshape_infer", "RESHAPE", (2, 3, 4), (-1.0, 1.0),
                   lambda x: tf.reshape(x, [-1, 4]), params=dict(new_shape=[-1, 4])))
    add(unary_spec("squeeze_axis2", "SQUEEZE", (1, 4, 1, 8), (-1.0, 1.0),
                   lambda x: tf.squeeze(x, axis=2), params=dict(squeeze_dims=[2]),
                   patch=reshape_to_squeeze([2])))
    add(unary_spec("squeeze_all", "SQUEEZE", (1, 1, 6, 1), (-1.0, 1.0),
                   lambda x: tf.squeeze(x), params=dict(squeeze_dims=[]),
                   patch=reshape_to_squeeze([])))
    add(unary_spec("squeeze_neg_axis", "SQUEEZE", (2, 1, 3, 1), (-1.0, 1.0),
                   lambda x: tf.squeeze(x, axis=-1), params=dict(squeeze_dims=[-1]),
                   patch=reshape_to_squeeze([-1])))

    # ---------------- QUANTIZE / DEQUANTIZE (float I/O)
    add(unary_spec("quant_dequant_relu_floatio", "QUANTIZE", (1, 64), (-3.0, 5.0), tf.nn.relu,
                   params=dict(also="DEQUANTIZE"), io="float"))
    add(unary_spec("quant_dequant_reshape_floatio", "DEQUANTIZE", (2, 16), (-0.7, 0.3),
                   lambda x: tf.reshape(x, [4, 8]), params=dict(also="QUANTIZE"), io="float"))
    add(unary_spec("requant_uint8io_relu6", "QUANTIZE", (1, 64), (-1.0, 7.0), tf.nn.relu6,
                   params=dict(note="uint8<->int8 QUANTIZE at both ends"), io="uint8"))

    # ---------------- tiny multi-op nets
    def tiny_net(rng):
        w1 = w_normal(rng, (3, 3, 3, 8), 0.3)
        b1 = w_normal(rng, (8,), 0.1)
        wd = w_normal(rng, (3, 3, 8, 1), 0.5)
        bd = w_normal(rng, (8,), 0.1)
        w2 = w_normal(rng, (1, 1, 8, 8), 0.4)
        wf = w_normal(rng, (8, 5), 0.4)
        bf = w_normal(rng, (5,), 0.1)

        def body(x):
            y = tf.nn.relu6(tf.nn.conv2d(x, w1, [1, 2, 2, 1], "SAME") + b1)
            z = tf.nn.relu(tf.raw_ops.DepthwiseConv2dNative(
                input=y, filter=wd, strides=[1, 1, 1, 1], padding="SAME",
                dilations=[1, 1, 1, 1]) + bd)
            z = tf.nn.conv2d(z, w2, [1, 1, 1, 1], "SAME")
            y = tf.nn.relu(y + z)
            y = tf.nn.max_pool2d(y, 2, 2, "VALID")
            y = tf.reduce_mean(y, axis=[1, 2])
            return tf.nn.softmax(tf.matmul(y, wf) + bf)

        return body

    add(Spec("net_conv_dw_res_pool_fc_softmax", "CONV_2D",
             dict(ops="conv relu6, dw relu, 1x1 conv, add relu, maxpool, mean, fc, softmax"),
             tiny_net, [[1, 12, 12, 3]], ranges=[(-1.0, 1.0)]))
    add(Spec("net_uint8io", "CONV_2D", dict(ops="same net, uint8 I/O"), tiny_net,
             [[1, 12, 12, 3]], ranges=[(0.0, 1.0)], io="uint8"))

    def mlp(rng):
        w1 = w_normal(rng, (20, 16), 0.3)
        w2 = w_normal(rng, (16, 4), 0.3)

        def body(x):
            h = tf.nn.leaky_relu(tf.matmul(x, w1), alpha=0.1)
            h = tf.concat([tf.sigmoid(h[:, :8]), tf.tanh(h[:, 8:])], axis=1)
            return tf.reshape(tf.matmul(h, w2), [1, 2, 2])

        return body

    add(Spec("net_mlp_mixed", "FULLY_CONNECTED",
             dict(ops="fc, leaky_relu, strided_slice, logistic, tanh, concat, fc, reshape"),
             mlp, [[1, 20]], ranges=[(-2.0, 2.0)]))

    # ---------------- shape and data movement (test_data_ops.py has every type)
    def dm_spec(name, op, shapes, body, ranges=None, batch_none=False, params=None):
        def fn(rng):
            return body

        p = dict(shapes=[list(x) for x in shapes])
        p.update(params or {})
        return Spec(name, op, p, fn, shapes, ranges=ranges, batch_none=batch_none)

    add(dm_spec("dm_transpose_nhwc_nchw", "TRANSPOSE", [(1, 4, 5, 3)],
                lambda x: tf.transpose(x, [0, 3, 1, 2])))
    add(dm_spec("dm_transpose_3d", "TRANSPOSE", [(2, 3, 4)], lambda x: tf.transpose(x, [2, 0, 1])))
    add(dm_spec("dm_pack_axis1", "PACK", [(2, 5), (2, 5)],
                lambda a, b: tf.stack([a, b], axis=1)))
    add(dm_spec("dm_pack_neg_axis_3", "PACK", [(3, 4), (3, 4), (3, 4)],
                lambda a, b, c: tf.stack([a, b, c], axis=-1)))
    add(dm_spec("dm_unpack_axis1", "UNPACK", [(2, 3, 4)], lambda x: tf.unstack(x, axis=1)))
    add(dm_spec("dm_split_3_last", "SPLIT", [(1, 4, 4, 6)], lambda x: tf.split(x, 3, axis=-1)))
    add(dm_spec("dm_split_v_axis1", "SPLIT_V", [(2, 6, 3)], lambda x: tf.split(x, [2, 3, 1], axis=1)))
    add(dm_spec("dm_slice_4d", "SLICE", [(1, 6, 5, 4)],
                lambda x: tf.slice(x, [0, 1, 2, 0], [1, 3, -1, 2])))
    # (no TILE: the converter marks int8 TILE version 3, which ai-edge-litert's
    # reference resolver does not register)
    add(dm_spec("dm_reverse_axis1", "REVERSE_V2", [(2, 5, 3)], lambda x: tf.reverse(x, axis=[1])))
    add(dm_spec("dm_broadcast_to", "BROADCAST_TO", [(3, 1)],
                lambda x: tf.broadcast_to(x, [2, 3, 4])))
    # (with [tf.shape(x)[0], -1] the converter leaves the output's static
    # shape [1, 1]: the engine refuses that at load, see test_data_ops.py)
    add(dm_spec("dm_dynamic_batch_reshape", "SHAPE", [(1, 4, 4, 2)],
                lambda x: tf.reshape(x, [tf.shape(x)[0], 32]), batch_none=True,
                params=dict(note="SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE")))
    add(dm_spec("dm_dynamic_batch_fill", "FILL", [(1, 8)],
                lambda x: x + tf.fill([tf.shape(x)[0], 8], 0.5), batch_none=True,
                params=dict(note="SHAPE -> STRIDED_SLICE -> PACK -> FILL -> ADD")))

    add(dm_spec("dm_gather_axis1", "GATHER", [(2, 6, 3)],
                lambda x: tf.gather(x, tf.constant([5, 0, 2, 2], tf.int32), axis=1)))
    add(dm_spec("dm_gather_nd", "GATHER_ND", [(4, 5, 3)],
                lambda x: tf.gather_nd(x, tf.constant([[0, 1], [3, 4], [2, 2]], tf.int32))))
    add(dm_spec("dm_space_to_depth_b2", "SPACE_TO_DEPTH", [(1, 4, 6, 3)],
                lambda x: tf.nn.space_to_depth(x, 2)))
    # (no DEPTH_TO_SPACE: the converter marks int8 version 2, which
    # ai-edge-litert's reference resolver does not register)
    add(dm_spec("dm_mirror_pad_reflect", "MIRROR_PAD", [(1, 4, 5, 2)],
                lambda x: tf.pad(x, [[0, 0], [2, 1], [1, 3], [0, 0]], mode="REFLECT")))
    add(dm_spec("dm_mirror_pad_symmetric", "MIRROR_PAD", [(3, 4)],
                lambda x: tf.pad(x, [[1, 3], [4, 0]], mode="SYMMETRIC")))
    add(dm_spec("dm_space_to_batch_nd", "SPACE_TO_BATCH_ND", [(1, 5, 6, 2)],
                lambda x: tf.space_to_batch_nd(x, [2, 3], [[1, 0], [0, 0]])))
    add(dm_spec("dm_batch_to_space_nd", "BATCH_TO_SPACE_ND", [(4, 3, 2, 2)],
                lambda x: tf.batch_to_space(x, [2, 2], [[1, 0], [0, 1]])))

    # Keras recurrent layers unrolled (unroll=True): the converter splits
    # the gates with SPLIT and the time steps with UNPACK, joins with PACK.
    def rnn_net(kind):
        def fn(rng):
            import keras

            keras.utils.set_random_seed(seed_of("net_%s_unroll" % kind))
            layer = keras.layers.GRU if kind == "gru" else keras.layers.LSTM
            inp = keras.Input((6, 5), batch_size=1)
            x = layer(8, unroll=True, return_sequences=True)(inp)
            x = layer(4, unroll=True)(x)
            model = keras.Model(inp, keras.layers.Dense(3, activation="softmax")(x))
            return lambda x: model(x)

        return fn

    for kind in ("gru", "lstm"):
        add(Spec("net_%s_unroll" % kind, "UNPACK",
                 dict(ops="keras %s(8, return_sequences) -> %s(4) -> dense softmax, unroll=True"
                      % (kind.upper(), kind.upper())),
                 rnn_net(kind), [[1, 6, 5]], ranges=[(-1.0, 1.0)]))

    return specs


# --------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-k", default="", help="only fixtures whose name contains this")
    ap.add_argument("--list", action="store_true", help="list fixture names and exit")
    ap.add_argument("--out", default=OUT_DIR)
    args = ap.parse_args()

    specs = catalogue()
    names = [s.name for s in specs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        sys.exit("duplicate fixture names: %s" % dup)
    if args.list:
        for s in specs:
            print("%-40s %s" % (s.name, s.op))
        return

    import tensorflow as tf
    import keras

    os.makedirs(args.out, exist_ok=True)
    man_path = os.path.join(args.out, "MANIFEST.json")
    old = {}
    if args.k and os.path.exists(man_path):
        with open(man_path) as f:
            old = {e["name"]: e for e in json.load(f)["fixtures"]}

    entries = dict(old)
    failures = []
    total = 0
    for spec in specs:
        if args.k and args.k not in spec.name:
            continue
        try:
            data = convert(spec)
        except Exception as e:  # a converter refusal is a catalogue bug: report it
            failures.append("%s: conversion failed: %s" % (spec.name, str(e).splitlines()[0]))
            continue
        info = oracle.model_info(data)
        problems = []
        if spec.op not in info.ops:
            problems.append("target op %s missing (ops: %s)" % (spec.op, info.ops))
        also = spec.params.get("also")
        if also and also not in info.ops:
            problems.append("op %s missing (ops: %s)" % (also, info.ops))
        extra = sorted(set(info.ops) - set(oracle.ENGINE_OPS))
        if extra:
            problems.append("ops outside the engine's list: %s" % extra)
        try:
            oracle.Oracle(data)
        except Exception as e:
            problems.append("the reference interpreter refuses it: %s" % e)
        if problems:
            failures.append("%s: %s" % (spec.name, "; ".join(problems)))
            continue
        path = os.path.join(args.out, spec.name + ".tflite")
        with open(path, "wb") as f:
            f.write(data)
        total += len(data)
        entries[spec.name] = dict(
            name=spec.name,
            file=spec.name + ".tflite",
            op=spec.op,
            params=spec.params,
            io=spec.io,
            per_channel=spec.per_channel,
            patched=spec.patch is not None,
            ops=info.ops,
            input_shapes=spec.in_shapes,
            input_ranges=[list(r) for r in spec.ranges],
            bytes=len(data),
            sha256=hashlib.sha256(data).hexdigest(),
        )
        print("%-40s %6d B  %s" % (spec.name, len(data), " ".join(info.ops)))

    if failures:
        print("\n%d fixture(s) failed:" % len(failures), file=sys.stderr)
        for f in failures:
            print("  " + f, file=sys.stderr)

    order = {n: i for i, n in enumerate(names)}
    manifest = dict(
        generator="tests/conformance/gen_op_models.py",
        tensorflow=tf.__version__,
        keras=keras.__version__,
        representative_samples=REP_SAMPLES,
        note="Regenerate with: python3 tests/conformance/gen_op_models.py "
             "(needs tests/requirements-gen.txt)",
        fixtures=sorted(entries.values(), key=lambda e: order.get(e["name"], 1 << 30)),
    )
    with open(man_path, "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=False)
        f.write("\n")
    print("\n%d fixtures written (%d bytes this run) to %s" % (len(entries), total, args.out))
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
