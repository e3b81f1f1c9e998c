# SPDX-License-Identifier: Apache-2.0
"""The shape and data-movement ops (issue 17): one-op graphs written with the
TFLite schema (graph_builder), for every element type TFLite's reference
kernel takes, on seeded random shapes (broadcast edge cases, negative axes,
scalars and dimensions of 1 among them), each checked bit-exact against
ai-edge-litert's reference kernels (BUILTIN_REF; TFLite Micro where LiteRT
refuses the file) on seeded random inputs plus all-min and all-max.

Hostile models (axes out of range, a perm that is no permutation, a slice
leaving its input, splits that do not add up, computed FILL/BROADCAST_TO
shapes that disagree with the planned one) must be refused cleanly: at
load naming the op, or at invoke with a non-zero exit for data-dependent
shapes.
"""

import os

import numpy as np
import pytest

import oracle
from graph_builder import build

N_RANDOM = 4
NP = {"INT8": np.int8, "UINT8": np.uint8, "INT16": np.int16, "INT32": np.int32,
      "INT64": np.int64, "FLOAT32": np.float32, "BOOL": np.bool_, "UINT16": np.uint16,
      "UINT32": np.uint32}
# Quantization the quantized types carry (movers keep it unchanged).
QUANT = {"INT8": (0.05, 3), "UINT8": (0.04, 128), "INT16": (0.001, 0)}


def S():
    return oracle._schema()


def rng_of(*parts):
    return np.random.default_rng(oracle.stable_seed("data_ops", *parts))


def t(shape, ttype, data=None):
    q = QUANT.get(ttype, (None, None))
    spec = (tuple(int(d) for d in shape), ttype) + q
    if data is not None:
        spec += (np.ascontiguousarray(np.asarray(data, dtype=NP[ttype]).reshape(shape)),)
    return spec


def rand_shape(r, rank, lo=1, hi=5):
    return [int(x) for x in r.integers(lo, hi + 1, size=rank)]


CASES = {}  # name -> (op, model bytes factory, input factory or None)


def case(name, op, fn, inputs=None):
    assert name not in CASES, name
    CASES[name] = (op, fn, inputs)


MOVER_TYPES = ["INT8", "UINT8", "INT16", "INT32", "INT64", "FLOAT32", "BOOL"]

# ---------------------------------------------------------------- SHAPE


def shape_model(in_shape, in_type, out_type):
    o = S().ShapeOptionsT()
    o.outType = getattr(S().TensorType, out_type)
    return build("SHAPE", [t(in_shape, in_type), ((len(in_shape),), out_type, None, None)],
                 "ShapeOptions", o)


# (A scalar's SHAPE is empty, which LiteRT's get_tensor cannot return.)
for k, (shape, ity) in enumerate([([1, 5, 3, 2], "INT8"), ([7], "FLOAT32"), ([1], "INT32"),
                                  ([2, 1, 1, 3, 1, 2], "UINT8"), ([4, 4], "BOOL")]):
    for oty in ("INT32", "INT64"):
        case("shape_%d_%s_to_%s" % (k, ity.lower(), oty.lower()), "SHAPE",
             lambda shape=shape, ity=ity, oty=oty: shape_model(shape, ity, oty))

# ---------------------------------------------------------------- EXPAND_DIMS


def expand_dims_model(shape, ttype, axis, axis_type):
    rank = len(shape)
    a = axis + rank + 1 if axis < 0 else axis
    out = list(shape[:a]) + [1] + list(shape[a:])
    return build("EXPAND_DIMS", [t(shape, ttype), t((1,), axis_type, [axis]), t(out, ttype)],
                 "ExpandDimsOptions", S().ExpandDimsOptionsT())


for ty in MOVER_TYPES:
    r = rng_of("expand_dims", ty)
    for k in range(3):
        rank = int(r.integers(0, 5))
        shape = rand_shape(r, rank)
        axis = int(r.integers(-rank - 1, rank + 1))
        aty = ("INT32", "INT64")[k % 2]
        case("expand_dims_%s_%d" % (ty.lower(), k), "EXPAND_DIMS",
             lambda shape=shape, ty=ty, axis=axis, aty=aty: expand_dims_model(shape, ty, axis, aty))

# ---------------------------------------------------------------- PACK / UNPACK


def pack_model(shape, ttype, n, axis):
    rank = len(shape)
    a = axis + rank + 1 if axis < 0 else axis
    out = list(shape[:a]) + [n] + list(shape[a:])
    o = S().PackOptionsT()
    o.valuesCount, o.axis = n, axis
    return build("PACK", [t(shape, ttype) for _ in range(n)] + [t(out, ttype)], "PackOptions", o)


for ty in ["INT8", "UINT8", "INT16", "INT32", "INT64", "FLOAT32"]:
    r = rng_of("pack", ty)
    for k in range(4):
        rank = int(r.integers(0, 5))
        shape = rand_shape(r, rank)
        n = int(r.integers(1, 5))
        axis = int(r.integers(-rank - 1, rank + 1))
        case("pack_%s_%d" % (ty.lower(), k), "PACK",
             lambda shape=shape, ty=ty, n=n, axis=axis: pack_model(shape, ty, n, axis))


def unpack_model(shape, ttype, axis):
    rank = len(shape)
    a = axis + rank if axis < 0 else axis
    n = shape[a]
    out = list(shape[:a]) + list(shape[a + 1:])
    o = S().UnpackOptionsT()
    o.num, o.axis = n, axis
    return build("UNPACK", [t(shape, ttype)] + [t(out, ttype) for _ in range(n)], "UnpackOptions", o,
                 n_out=n)


for ty in ["INT8", "UINT8", "INT16", "INT32", "FLOAT32", "BOOL"]:
    r = rng_of("unpack", ty)
    for k in range(4):
        rank = int(r.integers(1, 6))
        shape = rand_shape(r, rank)
        axis = int(r.integers(-rank, rank))
        case("unpack_%s_%d" % (ty.lower(), k), "UNPACK",
             lambda shape=shape, ty=ty, axis=axis: unpack_model(shape, ty, axis))

# ---------------------------------------------------------------- SPLIT / SPLIT_V


def split_model(shape, ttype, n, axis, axis_shape=()):
    rank = len(shape)
    a = axis + rank if axis < 0 else axis
    out = list(shape)
    out[a] //= n
    o = S().SplitOptionsT()
    o.numSplits = n
    return build("SPLIT", [t(axis_shape, "INT32", np.full(axis_shape, axis)), t(shape, ttype)] +
                 [t(out, ttype) for _ in range(n)], "SplitOptions", o, n_out=n)


for ty in ["INT8", "UINT8", "INT16", "INT32", "FLOAT32"]:
    r = rng_of("split", ty)
    for k in range(4):
        rank = int(r.integers(1, 6))
        shape = rand_shape(r, rank, 1, 4)
        axis = int(r.integers(-rank, rank))
        n = int(r.integers(1, 4))
        shape[axis] *= n
        case("split_%s_%d" % (ty.lower(), k), "SPLIT",
             lambda shape=shape, ty=ty, n=n, axis=axis, k=k: split_model(shape, ty, n, axis,
                                                                           (1,) if k % 2 else ()))


def split_v_model(shape, ttype, sizes, axis, size_type):
    rank = len(shape)
    a = axis + rank if axis < 0 else axis
    full = list(sizes)
    if -1 in full:
        i = full.index(-1)
        full[i] = shape[a] - (sum(full) + 1)
    outs = []
    for s in full:
        o = list(shape)
        o[a] = s
        outs.append(t(o, ttype))
    o = S().SplitVOptionsT()
    o.numSplits = len(sizes)
    return build("SPLIT_V", [t(shape, ttype), t((len(sizes),), size_type, sizes), t((), "INT32", axis)] +
                 outs, "SplitVOptions", o, n_out=len(sizes))


for ty in ["INT8", "UINT8", "INT16", "INT32", "INT64", "FLOAT32"]:
    r = rng_of("split_v", ty)
    for k in range(4):
        rank = int(r.integers(1, 5))
        shape = rand_shape(r, rank, 1, 4)
        axis = int(r.integers(-rank, rank))
        n = int(r.integers(1, 5))
        sizes = [int(x) for x in r.integers(0 if k == 3 else 1, 4, size=n)]
        shape[axis] = sum(sizes)
        if shape[axis] == 0:
            sizes[0] = shape[axis] = 1
        if k % 2 and n > 1:
            sizes[int(r.integers(0, n))] = -1
        case("split_v_%s_%d" % (ty.lower(), k), "SPLIT_V",
             lambda shape=shape, ty=ty, sizes=sizes, axis=axis, k=k: split_v_model(
                 shape, ty, sizes, axis, ("INT32", "INT64")[k // 2 % 2]))

# ---------------------------------------------------------------- TRANSPOSE


def transpose_model(shape, ttype, perm):
    rank = len(shape)
    out = [shape[p + rank if p < 0 else p] for p in perm]
    return build("TRANSPOSE", [t(shape, ttype), t((rank,), "INT32", perm), t(out, ttype)],
                 "TransposeOptions", S().TransposeOptionsT())


for ty in MOVER_TYPES:
    r = rng_of("transpose", ty)
    for k in range(5):
        rank = int(r.integers(1, 7))
        shape = rand_shape(r, rank, 1, 4 if rank > 4 else 6)
        perm = [int(p) for p in r.permutation(rank)]
        if k % 2:  # negative entries count from the end
            perm = [p - rank if r.integers(0, 2) else p for p in perm]
        case("transpose_%s_%d" % (ty.lower(), k), "TRANSPOSE",
             lambda shape=shape, ty=ty, perm=perm: transpose_model(shape, ty, perm))

# ---------------------------------------------------------------- SLICE


def slice_model(shape, ttype, begin, size, itype):
    out = [shape[d] - begin[d] if size[d] == -1 else size[d] for d in range(len(shape))]
    return build("SLICE", [t(shape, ttype), t((len(shape),), itype, begin), t((len(shape),), itype, size),
                           t(out, ttype)], "SliceOptions", S().SliceOptionsT())


for ty in MOVER_TYPES:
    r = rng_of("slice", ty)
    for k in range(4):
        rank = int(r.integers(1, 6))
        shape = rand_shape(r, rank, 1, 6)
        begin = [int(r.integers(0, d)) for d in shape]
        size = [int(r.integers(1, d - b + 1)) if r.integers(0, 3) else -1 for d, b in zip(shape, begin)]
        case("slice_%s_%d" % (ty.lower(), k), "SLICE",
             lambda shape=shape, ty=ty, begin=begin, size=size, k=k: slice_model(
                 shape, ty, begin, size, ("INT32", "INT64")[k % 2]))

# ---------------------------------------------------------------- TILE


def tile_model(shape, ttype, mult, mtype):
    out = [d * m for d, m in zip(shape, mult)]
    return build("TILE", [t(shape, ttype), t((len(shape),), mtype, mult), t(out, ttype)],
                 "TileOptions", S().TileOptionsT())


for ty in MOVER_TYPES:
    r = rng_of("tile", ty)
    for k in range(4):
        rank = int(r.integers(1, 6))
        shape = rand_shape(r, rank, 1, 4)
        mult = [int(x) for x in r.integers(1, 4, size=rank)]
        case("tile_%s_%d" % (ty.lower(), k), "TILE",
             lambda shape=shape, ty=ty, mult=mult, k=k: tile_model(shape, ty, mult,
                                                                  ("INT32", "INT64")[k % 2]))

# ---------------------------------------------------------------- FILL


def fill_model(shape, ttype, dtype, const_dims=True):
    dims = t((len(shape),), dtype, shape) if const_dims else t((len(shape),), dtype)
    return build("FILL", [dims, t((), ttype), t(shape, ttype)], "FillOptions", S().FillOptionsT())


for ty in ["INT8", "INT16", "INT32", "INT64", "FLOAT32", "BOOL"]:
    r = rng_of("fill", ty)
    for k in range(3):
        rank = int(r.integers(0, 5))
        shape = rand_shape(r, rank)
        case("fill_%s_%d" % (ty.lower(), k), "FILL",
             lambda shape=shape, ty=ty, k=k: fill_model(shape, ty, ("INT32", "INT64")[k % 2]))


def computed_dims(shape, dtype):
    """Inputs for a FILL whose dims are a graph input: the planned shape."""
    def inputs(orc, name):
        return [(label, [np.array(shape, NP[dtype])] + arrs[1:]) for label, arrs in std_inputs(orc, name)]
    return inputs


for ty, dty, shape in [("INT32", "INT32", [2, 3, 4]), ("FLOAT32", "INT64", [5, 1, 2])]:
    case("fill_computed_dims_%s" % ty.lower(), "FILL",
         lambda shape=shape, ty=ty, dty=dty: fill_model(shape, ty, dty, const_dims=False),
         computed_dims(shape, dty))

# ---------------------------------------------------------------- ZEROS_LIKE

for ty in ["INT32", "INT64", "FLOAT32"]:
    for k, shape in enumerate([[3, 1, 4], [], [2, 2, 2, 2, 2]]):
        case("zeros_like_%s_%d" % (ty.lower(), k), "ZEROS_LIKE",
             lambda shape=shape, ty=ty: build("ZEROS_LIKE", [t(shape, ty), t(shape, ty)],
                                              "ZerosLikeOptions", S().ZerosLikeOptionsT()))

# ---------------------------------------------------------------- BROADCAST_TO


def broadcast_to_model(in_shape, out_shape, ttype, stype, const_shape=True):
    sh = t((len(out_shape),), stype, out_shape) if const_shape else t((len(out_shape),), stype)
    return build("BROADCAST_TO", [t(in_shape, ttype), sh, t(out_shape, ttype)],
                 "BroadcastToOptions", S().BroadcastToOptionsT(), version=2)


for ty in MOVER_TYPES:
    r = rng_of("broadcast_to", ty)
    for k in range(4):
        rank = int(r.integers(1, 7))
        out = rand_shape(r, rank, 1, 4)
        in_rank = int(r.integers(0, rank + 1))
        ins = [1 if r.integers(0, 2) else d for d in out[rank - in_rank:]]
        case("broadcast_to_%s_%d" % (ty.lower(), k), "BROADCAST_TO",
             lambda ins=ins, out=out, ty=ty, k=k: broadcast_to_model(ins, out, ty,
                                                                     ("INT32", "INT64")[k % 2]))


def computed_shape(out, dtype):
    def inputs(orc, name):
        return [(label, [arrs[0], np.array(out, NP[dtype])]) for label, arrs in std_inputs(orc, name)]
    return inputs


case("broadcast_to_computed_shape", "BROADCAST_TO",
     lambda: broadcast_to_model([3, 1], [2, 3, 4], "INT8", "INT32", const_shape=False),
     computed_shape([2, 3, 4], "INT32"))

# ---------------------------------------------------------------- REVERSE_V2


def reverse_model(shape, ttype, axes):
    return build("REVERSE_V2", [t(shape, ttype), t((len(axes),), "INT32", axes), t(shape, ttype)],
                 "ReverseV2Options", S().ReverseV2OptionsT(), version=2)


for ty in MOVER_TYPES:
    r = rng_of("reverse_v2", ty)
    for k in range(4):
        rank = int(r.integers(1, 6))
        shape = rand_shape(r, rank, 1, 5)
        n = 1 if k < 2 else int(r.integers(1, rank + 1))
        first = int(r.integers(0, rank - n + 1))
        axes = [int(a) for a in r.permutation(range(first, first + n))]  # contiguous, any order
        if k % 2:
            axes = [a - rank for a in axes]
        case("reverse_v2_%s_%d" % (ty.lower(), k), "REVERSE_V2",
             lambda shape=shape, ty=ty, axes=axes: reverse_model(shape, ty, axes))

# ---------------------------------------------------------------- CAST

CAST_TYPES = ["FLOAT32", "INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32", "INT64", "BOOL"]


def cast_model(shape, frm, to):
    o = S().CastOptionsT()
    o.inDataType, o.outDataType = getattr(S().TensorType, frm), getattr(S().TensorType, to)
    return build("CAST", [(tuple(shape), frm, None, None), (tuple(shape), to, None, None)],
                 "CastOptions", o)


# Float sources: past each end of the target's range (the reference
# saturates), and one set of infinities and NaNs.
FLOAT_RANGE = {"INT8": (-300.0, 300.0), "UINT16": (-7.0e4, 7.0e4), "UINT32": (-1.0e9, 5.0e9),
               "INT64": (-1.0e19, 1.0e19), "INT32": (-3.0e9, 3.0e9), "INT16": (-4.0e4, 4.0e4),
               "UINT8": (-300.0, 300.0), "BOOL": (-2.0, 2.0), "FLOAT32": (-1e30, 1e30)}


def cast_inputs(frm, to):
    def inputs(orc, name):
        d = orc.inputs[0]
        sets = []
        for i in range(N_RANDOM + 2):
            r = np.random.default_rng(oracle.stable_seed(name, i))
            if frm == "FLOAT32":
                lo, hi = FLOAT_RANGE[to]
                a = r.uniform(lo, hi, size=d.shape)
                if i == 0:
                    a = np.round(r.uniform(-4, 4, size=d.shape) * 2) / 2  # halves and zeros
                if i == 1:
                    a = r.choice([np.inf, -np.inf, np.nan, 0.0, -0.0, 2147483520.0, 2147483648.0,
                                  -2147483648.0, 4294967295.0, 9.2233720e18, -9.3e18], size=d.shape)
                a = a.astype(np.float32)
            elif frm == "BOOL":
                a = r.integers(0, 2, size=d.shape).astype(np.bool_)
            else:
                info = np.iinfo(d.dtype)
                a = r.integers(info.min, int(info.max) + 1, size=d.shape, dtype=np.int64).astype(d.dtype)
                if i == 0:
                    a = r.integers(-3, 4, size=d.shape).astype(d.dtype)
            sets.append(("seed%d" % i, [a]))
        return sets
    return inputs


for frm in CAST_TYPES:
    for to in CAST_TYPES:
        if frm == to and frm not in ("INT8", "FLOAT32"):
            continue
        case("cast_%s_%s" % (frm.lower(), to.lower()), "CAST",
             lambda frm=frm, to=to: cast_model([3, 17], frm, to), cast_inputs(frm, to))


# ---------------------------------------------------------------- GATHER / GATHER_ND


def gather_out_shape(pshape, ishape, axis, bd):
    return list(pshape[:axis]) + list(ishape[bd:]) + list(pshape[axis + 1:])


def gather_model(pshape, ttype, ishape, itype, axis, bd, idx=None):
    rank, irank = len(pshape), len(ishape)
    a = axis + rank if axis < 0 else axis
    b = bd + irank if bd < 0 else bd
    o = S().GatherOptionsT()
    o.axis, o.batchDims = axis, bd
    return build("GATHER", [t(pshape, ttype), t(ishape, itype, idx),
                            t(gather_out_shape(pshape, ishape, a, b), ttype)], "GatherOptions", o)


def index_inputs(k, hi_of):
    """Inputs where graph input k holds valid indices: hi_of(desc) gives the
    exclusive upper bound per element (an array of the input's shape)."""
    def inputs(orc, name):
        sets = []
        for label, arrs in std_inputs(orc, name):
            d = orc.inputs[k]
            r = np.random.default_rng(oracle.stable_seed(name, label, "idx"))
            hi = hi_of(d)
            arrs[k] = (r.random(d.shape) * hi).astype(np.int64).astype(d.dtype)
            sets.append((label, arrs))
        return sets
    return inputs


for ty in MOVER_TYPES:
    r = rng_of("gather", ty)
    for k in range(4):
        rank = int(r.integers(1, 5))
        pshape = rand_shape(r, rank, 1, 5)
        axis = int(r.integers(-rank, rank))
        a = axis + rank if axis < 0 else axis
        bd = int(r.integers(0, a + 1)) if k >= 2 else 0
        ishape = list(pshape[:bd]) + rand_shape(r, int(r.integers(0, 3)), 1, 4)
        ity = ("INT32", "INT64", "INT32", "INT16")[k]
        n = pshape[a]
        if k % 2 == 0:  # constant indices
            idx = r.integers(0, n, size=ishape)
            case("gather_%s_%d" % (ty.lower(), k), "GATHER",
                 lambda pshape=pshape, ty=ty, ishape=ishape, ity=ity, axis=axis, bd=bd, idx=idx:
                 gather_model(pshape, ty, ishape, ity, axis, bd, idx))
        else:  # computed indices
            case("gather_%s_%d" % (ty.lower(), k), "GATHER",
                 lambda pshape=pshape, ty=ty, ishape=ishape, ity=ity, axis=axis, bd=bd:
                 gather_model(pshape, ty, ishape, ity, axis, bd),
                 index_inputs(1, lambda d, n=n: np.full(d.shape, n)))


def gather_nd_model(pshape, ttype, ishape, itype, idx=None):
    k = ishape[-1]
    out = list(ishape[:-1]) + list(pshape[k:])
    return build("GATHER_ND", [t(pshape, ttype), t(ishape, itype, idx), t(out, ttype)],
                 "GatherNdOptions", S().GatherNdOptionsT())


for ty in MOVER_TYPES:
    r = rng_of("gather_nd", ty)
    for k in range(3):
        rank = int(r.integers(1, 5))
        pshape = rand_shape(r, rank, 1, 5)
        depth = int(r.integers(1, rank + 1))
        ishape = rand_shape(r, int(r.integers(0, 3)), 1, 4) + [depth]
        ity = ("INT32", "INT64", "INT32")[k]
        bounds = np.array(pshape[:depth])
        if k == 0:
            idx = (r.random(ishape) * bounds).astype(np.int64)
            case("gather_nd_%s_%d" % (ty.lower(), k), "GATHER_ND",
                 lambda pshape=pshape, ty=ty, ishape=ishape, ity=ity, idx=idx:
                 gather_nd_model(pshape, ty, ishape, ity, idx))
        else:
            case("gather_nd_%s_%d" % (ty.lower(), k), "GATHER_ND",
                 lambda pshape=pshape, ty=ty, ishape=ishape, ity=ity: gather_nd_model(pshape, ty, ishape, ity),
                 index_inputs(1, lambda d, bounds=bounds: np.broadcast_to(bounds, d.shape)))

# ---------------------------------------------------------------- SPACE_TO_DEPTH / DEPTH_TO_SPACE

S2D_TYPES = ["INT8", "UINT8", "INT16", "INT32", "INT64", "FLOAT32"]
for ty in [x for x in S2D_TYPES if x != "INT16"]:  # the reference takes no int16 here
    r = rng_of("s2d", ty)
    for k in range(2):
        b = int(r.integers(1, 4))
        n, h, w, c = 1 + k, b * int(r.integers(1, 4)), b * int(r.integers(1, 4)), int(r.integers(1, 5))

        def s2d(n=n, h=h, w=w, c=c, b=b, ty=ty):
            o = S().SpaceToDepthOptionsT()
            o.blockSize = b
            return build("SPACE_TO_DEPTH", [t((n, h, w, c), ty), t((n, h // b, w // b, c * b * b), ty)],
                         "SpaceToDepthOptions", o)

        def d2s(n=n, h=h, w=w, c=c, b=b, ty=ty):
            o = S().DepthToSpaceOptionsT()
            o.blockSize = b
            return build("DEPTH_TO_SPACE", [t((n, h // b, w // b, c * b * b), ty), t((n, h, w, c), ty)],
                         "DepthToSpaceOptions", o)

        case("space_to_depth_%s_%d" % (ty.lower(), k), "SPACE_TO_DEPTH", s2d)
        case("depth_to_space_%s_%d" % (ty.lower(), k), "DEPTH_TO_SPACE", d2s)

# ---------------------------------------------------------------- SPACE_TO_BATCH_ND / BATCH_TO_SPACE_ND


def s2b_model(shape, ty, block, pads):
    m = len(block)
    out = [shape[0] * int(np.prod(block))]
    for d in range(m):
        out.append((shape[d + 1] + pads[d][0] + pads[d][1]) // block[d])
    out += list(shape[m + 1:])
    return build("SPACE_TO_BATCH_ND", [t(shape, ty), t((m,), "INT32", block), t((m, 2), "INT32", pads),
                                       t(out, ty)], "SpaceToBatchNDOptions", S().SpaceToBatchNDOptionsT())


def b2s_model(shape, ty, block, crops):
    m = len(block)
    prod = int(np.prod(block))
    out = [shape[0] // prod]
    for d in range(m):
        out.append(shape[d + 1] * block[d] - crops[d][0] - crops[d][1])
    out += list(shape[m + 1:])
    return build("BATCH_TO_SPACE_ND", [t(shape, ty), t((m,), "INT32", block), t((m, 2), "INT32", crops),
                                       t(out, ty)], "BatchToSpaceNDOptions", S().BatchToSpaceNDOptionsT())


for ty in S2D_TYPES:
    r = rng_of("s2b", ty)
    for k in range(3):
        m = 1 if k == 2 else 2
        block = [int(x) for x in r.integers(1, 4, size=m)]
        pads, shape = [], [int(r.integers(1, 3))]
        for d in range(m):
            lo = int(r.integers(0, 3))
            size = int(r.integers(1, 6))
            hi = (-(size + lo)) % block[d]
            pads.append([lo, hi])
            shape.append(size)
        shape.append(int(r.integers(1, 4)))
        case("space_to_batch_nd_%s_%d" % (ty.lower(), k), "SPACE_TO_BATCH_ND",
             lambda shape=shape, ty=ty, block=block, pads=pads: s2b_model(shape, ty, block, pads))
        bshape = [shape[0] * int(np.prod(block))] + [int(r.integers(1, 4)) for _ in range(m)] + [shape[-1]]
        crops = [[int(r.integers(0, 2)), int(r.integers(0, 2))] if bshape[d + 1] * block[d] > 2 else [0, 0]
                 for d in range(m)]
        case("batch_to_space_nd_%s_%d" % (ty.lower(), k), "BATCH_TO_SPACE_ND",
             lambda bshape=bshape, ty=ty, block=block, crops=crops: b2s_model(bshape, ty, block, crops))

# ---------------------------------------------------------------- MIRROR_PAD / PADV2


def mirror_pad_model(shape, ty, pads, mode, ptype):
    o = S().MirrorPadOptionsT()
    o.mode = mode
    out = [d + p[0] + p[1] for d, p in zip(shape, pads)]
    return build("MIRROR_PAD", [t(shape, ty), t((len(shape), 2), ptype, pads), t(out, ty)],
                 "MirrorPadOptions", o, version=2)


for ty in S2D_TYPES:
    r = rng_of("mirror_pad", ty)
    for k in range(4):
        rank = int(r.integers(1, 5))
        shape = rand_shape(r, rank, 1, 5)
        mode = k % 2
        pads = [[int(r.integers(0, d - 1 + mode + 1)), int(r.integers(0, d - 1 + mode + 1))] for d in shape]
        case("mirror_pad_%s_%s_%d" % (ty.lower(), ("reflect", "symmetric")[mode], k), "MIRROR_PAD",
             lambda shape=shape, ty=ty, pads=pads, mode=mode, k=k: mirror_pad_model(
                 shape, ty, pads, mode, ("INT32", "INT64")[k // 2]))


def padv2_model(shape, ty, pads, value):
    out = [d + p[0] + p[1] for d, p in zip(shape, pads)]
    return build("PADV2", [t(shape, ty), t((len(shape), 2), "INT32", pads), t((), ty, value), t(out, ty)],
                 "PadV2Options", S().PadV2OptionsT(), version=1)


for ty in S2D_TYPES + ["BOOL"]:
    r = rng_of("padv2", ty)
    rank = int(r.integers(1, 6))
    shape = rand_shape(r, rank, 1, 4)
    pads = [[int(r.integers(0, 3)), int(r.integers(0, 3))] for _ in shape]
    value = {"BOOL": True, "FLOAT32": -2.5}.get(ty, 7)
    case("padv2_%s" % ty.lower(), "PADV2",
         lambda shape=shape, ty=ty, pads=pads, value=value: padv2_model(shape, ty, pads, value))

# ---------------------------------------------------------------- BROADCAST_ARGS


def broadcast_args_model(a, b, ty):
    n = max(len(a), len(b))
    return build("BROADCAST_ARGS", [t((len(a),), ty, a), t((len(b),), ty), t((n,), ty)], None, None)


for k, (a, b) in enumerate([([2, 1, 4], [3, 1]), ([1], [5, 6, 1]), ([3, 4], [3, 4]), ([7, 1, 1, 2], [1])]):
    for ty in ("INT32", "INT64"):
        case("broadcast_args_%s_%d" % (ty.lower(), k), "BROADCAST_ARGS",
             lambda a=a, b=b, ty=ty: broadcast_args_model(a, b, ty),
             lambda orc, name, b=b, ty=ty: [("given", [np.array(b, NP[ty])])])

# ---------------------------------------------------------------- DYNAMIC_UPDATE_SLICE


def dus_model(shape, ushape, ty, ity):
    return build("DYNAMIC_UPDATE_SLICE", [t(shape, ty), t(ushape, ty), t((len(shape),), ity), t(shape, ty)],
                 "DynamicUpdateSliceOptions", S().DynamicUpdateSliceOptionsT())


def dus_inputs(orc, name):
    sets = []
    for label, arrs in std_inputs(orc, name):
        d = orc.inputs[2]
        r = np.random.default_rng(oracle.stable_seed(name, label, "start"))
        arrs[2] = r.integers(-3, 8, size=d.shape).astype(d.dtype)  # clamped into range
        sets.append((label, arrs))
    return sets


for ty in ["INT8", "INT16", "INT32", "INT64", "FLOAT32", "BOOL"]:
    r = rng_of("dus", ty)
    for k in range(2):
        rank = int(r.integers(1, 5))
        shape = rand_shape(r, rank, 1, 5)
        ushape = [int(r.integers(1, d + 1)) for d in shape]
        case("dynamic_update_slice_%s_%d" % (ty.lower(), k), "DYNAMIC_UPDATE_SLICE",
             lambda shape=shape, ushape=ushape, ty=ty, k=k: dus_model(shape, ushape, ty, ("INT32", "INT64")[k]),
             dus_inputs)

# ---------------------------------------------------------------- EMBEDDING_LOOKUP


def embedding_model(rows, row_shape, vty, oty, ids=None, n_ids=5):
    r = rng_of("embedding", vty, oty, rows)
    info = np.iinfo(NP[vty]) if vty != "FLOAT32" else None
    vals = (r.standard_normal((rows,) + tuple(row_shape)) if info is None else
            r.integers(info.min, int(info.max) + 1, size=(rows,) + tuple(row_shape)))
    vspec = ((rows,) + tuple(row_shape), vty) + (QUANT.get(vty, (None, None)) if oty == vty else (0.037, 0)) + \
        (np.asarray(vals, NP[vty]),)
    ospec = ((n_ids,) + tuple(row_shape), oty) + QUANT.get(oty, (None, None))
    return build("EMBEDDING_LOOKUP", [t((n_ids,), "INT32", ids), vspec, ospec], None, None)


for k, (vty, oty, rows, row_shape) in enumerate([("FLOAT32", "FLOAT32", 7, [3]), ("INT8", "INT8", 4, [2, 3]),
                                                  ("UINT8", "UINT8", 6, [5]), ("INT8", "FLOAT32", 5, [4]),
                                                  ("UINT8", "FLOAT32", 3, [2, 2])]):
    case("embedding_lookup_%s_%s_%d" % (vty.lower(), oty.lower(), k), "EMBEDDING_LOOKUP",
         lambda vty=vty, oty=oty, rows=rows, row_shape=row_shape: embedding_model(rows, row_shape, vty, oty),
         index_inputs(0, lambda d, rows=rows: np.full(d.shape, rows)))


# ---------------------------------------------------------------- running

def std_inputs(orc, name):
    """All-min, all-max and N_RANDOM seeded sets over each input's range."""
    sets = []
    for mode in ("min", "max") + tuple(range(N_RANDOM)):
        arrs = []
        r = np.random.default_rng(oracle.stable_seed(name, mode))
        for d in orc.inputs:
            if d.dtype == np.bool_:
                a = np.full(d.shape, mode == "max") if mode in ("min", "max") else \
                    r.integers(0, 2, size=d.shape).astype(np.bool_)
            elif d.dtype.kind in "iu":
                info = np.iinfo(d.dtype)
                if mode == "min":
                    a = np.full(d.shape, info.min, d.dtype)
                elif mode == "max":
                    a = np.full(d.shape, info.max, d.dtype)
                else:
                    a = r.integers(info.min, int(info.max) + 1, size=d.shape, dtype=np.int64).astype(d.dtype)
            else:
                if mode in ("min", "max"):
                    a = np.full(d.shape, -3.4e38 if mode == "min" else 3.4e38, d.dtype)
                else:
                    a = (r.standard_normal(size=d.shape) * 10.0 ** r.integers(-3, 6)).astype(d.dtype)
            arrs.append(np.asarray(a, dtype=d.dtype).reshape(d.shape))
        sets.append((str(mode), arrs))
    return sets


def write_case(name, tmp_path):
    op, fn, _ = CASES[name]
    path = str(tmp_path / (name + ".tflite"))
    with open(path, "wb") as f:
        f.write(fn())
    return path, oracle.Oracle(path, allow_tflm=True)


def check_case(name, tmp_path, binary=None, n_sets=None):
    op, _, inputs = CASES[name]
    path, orc = write_case(name, tmp_path)
    assert orc.op_names() == [op] or orc.kind != "litert-builtin-ref"
    sets = (inputs or std_inputs)(orc, name)
    if n_sets:
        sets = sets[:n_sets]
    failures = []
    for label, arrs in sets:
        want = orc.run(arrs)
        outs = [oracle.TensorDesc(k, "", w.dtype, w.shape, 0.0, 0) for k, w in enumerate(want)]
        try:
            got = oracle.engine_run(path, arrs, outs, binary=binary)
        except oracle.EngineError as e:
            failures.append("%s [%s]: %s" % (name, label, e.describe()))
            continue
        for k, (w, g) in enumerate(zip(want, got)):
            msg = oracle.compare_bytes(w, g)
            if msg:
                failures.append("%s [%s] output %d: %s" % (name, label, k, msg))
    return failures, len(sets), orc.kind


@pytest.mark.parametrize("name", sorted(CASES))
def test_data_op(name, edgeq, tmp_path):
    failures, n, kind = check_case(name, tmp_path, binary=edgeq)
    assert not failures, "engine != %s:\n%s" % (kind, "\n".join(failures[:6]))


ASAN_SAMPLE = sorted(CASES)[::7]


@pytest.mark.parametrize("name", ASAN_SAMPLE)
def test_data_op_asan(name, asan_edgeq, tmp_path):
    failures, _, kind = check_case(name, tmp_path, binary=asan_edgeq, n_sets=3)
    assert not failures, "asan build != %s:\n%s" % (kind, "\n".join(failures[:6]))


# ---------------------------------------------------------------- refusals

def _perm_model(perm):
    return build("TRANSPOSE", [t((2, 3, 4), "INT8"), t((3,), "INT32", perm), t((2, 3, 4), "INT8")],
                 "TransposeOptions", S().TransposeOptionsT())


def _unpack_bad_axis():
    o = S().UnpackOptionsT()
    o.num, o.axis = 2, 3
    return build("UNPACK", [t((2, 2), "INT8"), t((2,), "INT8"), t((2,), "INT8")], "UnpackOptions", o,
                 n_out=2)


def _pack_bad_axis():
    o = S().PackOptionsT()
    o.valuesCount, o.axis = 2, -4
    return build("PACK", [t((2, 2), "FLOAT32"), t((2, 2), "FLOAT32"), t((2, 2, 2), "FLOAT32")], "PackOptions", o)


def _split_v_bad_sum():
    o = S().SplitVOptionsT()
    o.numSplits = 2
    return build("SPLIT_V", [t((2, 5), "INT8"), t((2,), "INT32", [2, 2]), t((), "INT32", 1),
                             t((2, 2), "INT8"), t((2, 2), "INT8")], "SplitVOptions", o, n_out=2)


def _split_uneven():
    o = S().SplitOptionsT()
    o.numSplits = 2
    return build("SPLIT", [t((), "INT32", 0), t((3, 2), "INT8"), t((1, 2), "INT8"), t((1, 2), "INT8")],
                 "SplitOptions", o, n_out=2)


def _tile_overflow():
    return build("TILE", [t((2, 3), "INT8"), t((2,), "INT64", [2 ** 40, 1]), t((4, 3), "INT8")],
                 "TileOptions", S().TileOptionsT())


def _reverse_bad_axis():
    return build("REVERSE_V2", [t((2, 3), "INT8"), t((1,), "INT32", [2]), t((2, 3), "INT8")],
                 "ReverseV2Options", S().ReverseV2OptionsT())


def _cast_string():
    return build("CAST", [((3,), "FLOAT32", None, None), ((3,), "FLOAT16", None, None)], None, None)


REFUSED = {
    # (model, words the message must hold)
    "transpose_not_a_permutation": (lambda: _perm_model([0, 0, 2]), "not a permutation"),
    "transpose_perm_out_of_range": (lambda: _perm_model([0, 1, 3]), "not a permutation"),
    "slice_leaves_input": (lambda: slice_model([4, 4], "INT8", [3, 0], [2, 4], "INT32"), "leaves"),
    "slice_negative_begin": (lambda: slice_model([4, 4], "INT8", [-1, 0], [1, 4], "INT32"), "begin"),
    "slice_huge_size": (lambda: build("SLICE", [t((4, 4), "INT8"), t((2,), "INT64", [1, 0]),
                                                t((2,), "INT64", [2 ** 40, 4]), t((2, 4), "INT8")],
                                      "SliceOptions", S().SliceOptionsT()), "leaves"),
    "expand_dims_axis_out_of_range": (
        lambda: build("EXPAND_DIMS", [t((2, 3), "INT8"), t((1,), "INT32", [3]), t((2, 3, 1), "INT8")],
                      "ExpandDimsOptions", S().ExpandDimsOptionsT()), "axis"),
    "unpack_axis_out_of_range": (_unpack_bad_axis, "axis"),
    "pack_axis_out_of_range": (_pack_bad_axis, "axis"),
    "split_v_sizes_do_not_add_up": (_split_v_bad_sum, "add up"),
    "split_uneven": (_split_uneven, "equal parts"),
    "tile_multiple_overflows": (_tile_overflow, "TILE"),
    "reverse_axis_out_of_range": (_reverse_bad_axis, "axis"),
    "broadcast_to_incompatible": (lambda: broadcast_to_model([3, 2], [2, 3, 4], "INT8", "INT32"),
                                  "broadcast"),
    "fill_dims_disagree": (lambda: build("FILL", [t((2,), "INT32", [2, 5]), t((), "INT32"),
                                                  t((2, 4), "INT32")], "FillOptions", S().FillOptionsT()),
                           "dims"),
    "cast_to_float16": (_cast_string, "not supported"),
    "gather_const_index_out_of_range": (
        lambda: gather_model([4, 3], "INT8", [2], "INT32", 0, 0, [1, 4]), "outside"),
    "gather_axis_out_of_range": (lambda: build(
        "GATHER", [t((4, 3), "INT8"), t((2,), "INT32", [0, 1]), t((2, 3), "INT8")], "GatherOptions",
        _opts("GatherOptionsT", axis=2)), "axis"),
    "gather_nd_depth_too_deep": (lambda: gather_nd_model([4, 3], "INT8", [2, 3], "INT32",
                                                         np.zeros((2, 3))), "depth"),
    "mirror_pad_reflect_too_wide": (lambda: mirror_pad_model([3, 2], "INT8", [[3, 0], [0, 0]], 0, "INT32"),
                                    "exceed"),
    "space_to_depth_block_does_not_divide": (lambda: build(
        "SPACE_TO_DEPTH", [t((1, 5, 4, 2), "INT8"), t((1, 2, 2, 8), "INT8")], "SpaceToDepthOptions",
        _opts("SpaceToDepthOptionsT", blockSize=2)), "divide"),
    "space_to_batch_pads_do_not_tile": (lambda: build(
        "SPACE_TO_BATCH_ND", [t((1, 5, 4, 2), "INT8"), t((2,), "INT32", [2, 2]),
                              t((2, 2), "INT32", [[0, 0], [0, 0]]), t((4, 3, 2, 2), "INT8")],
        "SpaceToBatchNDOptions", S().SpaceToBatchNDOptionsT()), "tile"),
    "embedding_const_id_out_of_range": (lambda: embedding_model(4, [3], "FLOAT32", "FLOAT32",
                                                                ids=[0, 1, 2, 3, 4]), "outside"),
    "broadcast_args_incompatible": (lambda: build(
        "BROADCAST_ARGS", [t((2,), "INT32", [2, 3]), t((2,), "INT32", [4, 3]), t((2,), "INT32")], None, None),
        "broadcast"),
}


def _opts(cls, **kw):
    o = getattr(S(), cls)()
    for k, v in kw.items():
        setattr(o, k, v)
    return o


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_data_op_refused(name, any_edgeq, tmp_path):
    fn, words = REFUSED[name]
    path = tmp_path / (name + ".tflite")
    path.write_bytes(fn())
    r = oracle.run_edgeq(["inspect", str(path)], binary=any_edgeq)
    assert r.returncode == 1, "%s: exit %s, stderr %s" % (name, oracle.describe_rc(r.returncode), r.stderr)
    assert words in r.stderr, "%s: message %r lacks %r" % (name, r.stderr, words)


@pytest.mark.parametrize("which", ["fill", "broadcast_to"])
def test_computed_shape_disagrees_at_invoke(which, any_edgeq, tmp_path):
    """A computed FILL dims / BROADCAST_TO shape that is not the planned
    output shape: a clear error at invoke, never a write past the output."""
    path = tmp_path / (which + ".tflite")
    if which == "fill":
        path.write_bytes(fill_model([2, 3, 4], "INT32", "INT32", const_dims=False))
        arrs = [np.array([2, 3, 5], np.int32), np.array(7, np.int32)]
    else:
        path.write_bytes(broadcast_to_model([3, 1], [2, 3, 4], "INT8", "INT32", const_shape=False))
        arrs = [np.zeros((3, 1), np.int8), np.array([4, 3, 4], np.int32)]
    outs = [oracle.TensorDesc(0, "", np.int32 if which == "fill" else np.int8, (2, 3, 4), 0.0, 0)]
    with pytest.raises(oracle.EngineError) as e:
        oracle.engine_run(str(path), arrs, outs, binary=any_edgeq)
    assert e.value.returncode == 1, e.value.describe()
    assert "differs from the planned output" in e.value.stderr, e.value.stderr


def test_dynamic_batch_flatten_refused(any_edgeq):
    """The converter's tf.reshape(x, [tf.shape(x)[0], -1]) with a dynamic
    batch (tests/fixtures/data_ops, made by gen_op_models.py's converter
    settings) leaves RESHAPE's output with the static shape [1, 1]: the
    engine plans static shapes and does not fold the SHAPE arithmetic at
    load, so it refuses the file at load, clearly, naming the op."""
    path = os.path.join(oracle.REPO, "tests", "fixtures", "data_ops", "dynamic_batch_flatten_minus1.tflite")
    r = oracle.run_edgeq(["inspect", path], binary=any_edgeq)
    assert r.returncode == 1, r.stderr
    assert "RESHAPE" in r.stderr and "elements" in r.stderr, r.stderr


@pytest.mark.parametrize("which", ["gather", "gather_nd", "embedding_lookup", "broadcast_args"])
def test_computed_index_out_of_range_at_invoke(which, any_edgeq, tmp_path):
    """Computed indices outside their dimension (or shapes that do not
    broadcast): a clear error at invoke, exit 1, never a read out of bounds
    (the ASan build would report one)."""
    path = tmp_path / (which + ".tflite")
    if which == "gather":
        path.write_bytes(gather_model([4, 3], "INT8", [2], "INT32", 0, 0))
        arrs, out = [np.zeros((4, 3), np.int8), np.array([1, 4], np.int32)], ((2, 3), np.int8)
    elif which == "gather_nd":
        path.write_bytes(gather_nd_model([4, 3], "FLOAT32", [2, 2], "INT64"))
        arrs, out = [np.zeros((4, 3), np.float32), np.array([[0, 0], [1, -1]], np.int64)], ((2,), np.float32)
    elif which == "embedding_lookup":
        path.write_bytes(embedding_model(4, [3], "FLOAT32", "FLOAT32"))
        arrs, out = [np.array([0, 1, 2, 3, 1 << 30], np.int32)], ((5, 3), np.float32)
    else:
        path.write_bytes(broadcast_args_model([2, 3], [2, 3], "INT32"))
        arrs, out = [np.array([4, 3], np.int32)], ((2,), np.int32)
    outs = [oracle.TensorDesc(0, "", out[1], out[0], 0.0, 0)]
    with pytest.raises(oracle.EngineError) as e:
        oracle.engine_run(str(path), arrs, outs, binary=any_edgeq)
    assert e.value.returncode == 1, e.value.describe()
    assert "outside" in e.value.stderr or "broadcast" in e.value.stderr, e.value.stderr
