# SPDX-License-Identifier: Apache-2.0
"""Oracle and engine runners for the conformance tests.

The oracle is the official interpreter, `ai_edge_litert`, with the reference
op resolver (BUILTIN_REF): TFLite's reference kernels, the bit-exact target.
Some old TOCO models (person_detect: bias tensors whose quantized_dimension
is beyond their rank) are refused by it; for those, and only those, TFLite
Micro (pip `tflite-micro`: the same reference kernels and rounding) is used.
`Oracle.kind` says which one ran.

`engine_run` runs `build/edgeq run` (or $EDGEQ) on numpy inputs and reads the
raw output bytes back with the dtype/shape the oracle reports.

Model structure (op names, tensor types, which tensors are constants) is read
with the TFLite schema bindings that ship in the `tflite-micro` wheel, so it
works for models neither interpreter will load.
"""

import concurrent.futures
import os
import signal
import subprocess
import tempfile
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SHARED = os.path.normpath(os.path.join(REPO, "..", "shared"))
SHARED_MODELS = os.path.join(SHARED, "models")

# The shape and data-movement ops (ops.h's EDGE_DATA_OP_LIST): one code path
# for every element type, checked on schema-built graphs of each type the
# reference takes (test_data_ops.py) rather than only on converter fixtures.
DATA_OPS = (
    "SHAPE", "EXPAND_DIMS", "PACK", "UNPACK", "SPLIT", "SPLIT_V", "TRANSPOSE", "SLICE", "TILE",
    "FILL", "ZEROS_LIKE", "BROADCAST_TO", "CAST", "REVERSE_V2", "GATHER", "GATHER_ND",
    "SPACE_TO_DEPTH", "DEPTH_TO_SPACE", "SPACE_TO_BATCH_ND", "BATCH_TO_SPACE_ND", "MIRROR_PAD",
    "BROADCAST_ARGS", "DYNAMIC_UPDATE_SLICE", "EMBEDDING_LOOKUP",
)

# The engine's op list (engine/src/ops/ops.h), by TFLite builtin name.
ENGINE_OPS = (
    "CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "ADD", "SUB", "MUL",
    "AVERAGE_POOL_2D", "MAX_POOL_2D", "MEAN", "RESHAPE", "SQUEEZE", "SOFTMAX",
    "LOGISTIC", "TANH", "HARD_SWISH", "RELU", "RELU6", "LEAKY_RELU", "PAD",
    "CONCATENATION", "STRIDED_SLICE", "QUANTIZE", "DEQUANTIZE", "MAXIMUM", "MINIMUM",
) + DATA_OPS

# Activation (non-constant) tensor types the engine runs.
ENGINE_ACT_TYPES = ("INT8", "UINT8", "FLOAT32", "INT32")

# Sanitizer settings: make a sanitizer report impossible to mistake for the
# CLI's own clean "exit 1".
SANITIZER_EXIT = 86
SAN_ENV = {
    "ASAN_OPTIONS": "exitcode=%d:detect_leaks=1:abort_on_error=0" % SANITIZER_EXIT,
    "UBSAN_OPTIONS": "halt_on_error=1:exitcode=%d:print_stacktrace=1" % SANITIZER_EXIT,
    "LSAN_OPTIONS": "exitcode=%d" % SANITIZER_EXIT,
}

ENGINE_TIMEOUT = float(os.environ.get("EDGEQ_TIMEOUT", "120"))


def _schema():
    from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as S

    return S


_BUILTIN_NAMES = None
_TYPE_NAMES = None


def _names(cls):
    return {v: k for k, v in vars(cls).items() if not k.startswith("_") and isinstance(v, int)}


def builtin_name(opcode):
    """Name of an OperatorCode(T): the larger of builtin_code and the
    deprecated int8 field, as the schema says to read them."""
    global _BUILTIN_NAMES
    if _BUILTIN_NAMES is None:
        _BUILTIN_NAMES = _names(_schema().BuiltinOperator)
    if hasattr(opcode, "builtinCode"):
        code = max(opcode.builtinCode, opcode.deprecatedBuiltinCode)
    else:
        code = max(opcode.BuiltinCode(), opcode.DeprecatedBuiltinCode())
    if code == 32:
        return "CUSTOM"
    return _BUILTIN_NAMES.get(code, "UNKNOWN_%d" % code)


def type_name(t):
    global _TYPE_NAMES
    if _TYPE_NAMES is None:
        _TYPE_NAMES = _names(_schema().TensorType)
    return _TYPE_NAMES.get(t, "TYPE_%d" % t)


_NP_TYPES = {"INT8": np.int8, "UINT8": np.uint8, "INT16": np.int16, "INT32": np.int32,
             "FLOAT32": np.float32, "INT64": np.int64, "BOOL": np.bool_,
             "FLOAT16": np.float16}


class TensorDesc:
    def __init__(self, index, name, dtype, shape, scale, zero_point, type_str=None):
        self.index = index
        self.name = name
        self.dtype = np.dtype(dtype)
        self.shape = tuple(int(d) for d in shape)
        self.scale = float(scale)
        self.zero_point = int(zero_point)
        self.type_str = type_str

    @property
    def nbytes(self):
        return int(np.prod(self.shape, dtype=np.int64)) * self.dtype.itemsize

    def __repr__(self):
        return "%s%s(scale=%g, zp=%d)" % (self.dtype.name, list(self.shape), self.scale,
                                         self.zero_point)


class ModelInfo:
    """What the flatbuffer says, without running it (first subgraph)."""

    def __init__(self, data):
        S = _schema()
        buf = bytearray(data)
        m = S.Model.GetRootAs(buf, 0)
        codes = [builtin_name(m.OperatorCodes(i)) for i in range(m.OperatorCodesLength())]
        self.n_subgraphs = m.SubgraphsLength()
        self.ops = []  # op names in execution order
        self.op_list = []  # (name, inputs, outputs)
        self.tensors = []
        self.inputs = []
        self.outputs = []
        if self.n_subgraphs == 0:
            return
        sg = m.Subgraphs(0)
        const = set()
        for i in range(sg.TensorsLength()):
            t = sg.Tensors(i)
            b = t.Buffer()
            is_const = False
            if 0 < b < m.BuffersLength():
                bb = m.Buffers(b)
                is_const = bb.DataLength() > 0 or bb.Offset() > 1
            if is_const:
                const.add(i)
            q = t.Quantization()
            scale, zp = 0.0, 0
            nscale = 0
            if q is not None and q.ScaleLength() > 0:
                scale = float(q.Scale(0))
                nscale = q.ScaleLength()
                zp = int(q.ZeroPoint(0)) if q.ZeroPointLength() > 0 else 0
            self.tensors.append(dict(
                index=i, name=(t.Name() or b"").decode("utf-8", "replace"),
                type=type_name(t.Type()), shape=list(t.ShapeAsNumpy()) if t.ShapeLength() else [],
                const=is_const, scale=scale, zero_point=zp, n_scales=nscale))
        for i in range(sg.OperatorsLength()):
            op = sg.Operators(i)
            name = codes[op.OpcodeIndex()]
            ins = [int(x) for x in op.InputsAsNumpy()] if op.InputsLength() else []
            outs = [int(x) for x in op.OutputsAsNumpy()] if op.OutputsLength() else []
            self.ops.append(name)
            self.op_list.append((name, ins, outs))
        self.inputs = [int(x) for x in sg.InputsAsNumpy()] if sg.InputsLength() else []
        self.outputs = [int(x) for x in sg.OutputsAsNumpy()] if sg.OutputsLength() else []
        self.const = const

    @property
    def op_set(self):
        return sorted(set(self.ops))

    def activation_types(self):
        return sorted({t["type"] for t in self.tensors if not t["const"]})

    def consumers(self, tensor):
        return [(n, ins, outs) for (n, ins, outs) in self.op_list if tensor in ins]

    def float_input_range(self, k):
        """A float range for graph input k: the range its QUANTIZE consumer can
        represent, widened by 10% to exercise saturation; else [-1, 1]."""
        t = self.inputs[k]
        for name, ins, outs in self.consumers(t):
            if name == "QUANTIZE" and outs:
                q = self.tensors[outs[0]]
                if q["scale"] > 0 and q["type"] in ("INT8", "UINT8", "INT16"):
                    lo, hi = {"INT8": (-128, 127), "UINT8": (0, 255),
                              "INT16": (-32768, 32767)}[q["type"]]
                    flo = (lo - q["zero_point"]) * q["scale"]
                    fhi = (hi - q["zero_point"]) * q["scale"]
                    pad = 0.1 * (fhi - flo)
                    return flo - pad, fhi + pad, q
        return -1.0, 1.0, None


def model_info(model):
    return ModelInfo(_read(model))


def _read(model):
    if isinstance(model, (bytes, bytearray)):
        return bytes(model)
    with open(model, "rb") as f:
        return f.read()


def is_tflite(path):
    try:
        with open(path, "rb") as f:
            head = f.read(8)
    except OSError:
        return False
    return len(head) == 8 and head[4:8] == b"TFL3"


class OracleLoadError(Exception):
    pass


class Oracle:
    """One interpreter per model, reused across inputs."""

    def __init__(self, model, allow_tflm=True):
        self.data = _read(model)
        self.path = model if isinstance(model, str) else None
        self.info = ModelInfo(self.data)
        self.kind = None
        self.litert_error = None
        try:
            self._init_litert()
            self.kind = "litert-builtin-ref"
        except Exception as e:  # refused: e.g. quantized_dimension out of range
            self.litert_error = str(e).strip().splitlines()[0] if str(e).strip() else repr(e)
            if not allow_tflm:
                raise OracleLoadError("ai_edge_litert refused the model: %s" % self.litert_error)
            try:
                self._init_tflm()
                self.kind = "tflite-micro"
            except Exception as e2:
                raise OracleLoadError("ai_edge_litert refused the model (%s) and so did "
                                      "tflite-micro (%s)" % (self.litert_error, e2))

    # -- litert
    def _init_litert(self):
        from ai_edge_litert import interpreter as I

        it = I.Interpreter(model_content=self.data,
                           experimental_op_resolver_type=I.OpResolverType.BUILTIN_REF,
                           num_threads=1)
        it.allocate_tensors()
        self._it = it
        self.inputs = [self._desc(d) for d in it.get_input_details()]
        self.outputs = [self._desc(d) for d in it.get_output_details()]
        self._run = self._run_litert

    @staticmethod
    def _desc(d):
        q = d.get("quantization", (0.0, 0))
        return TensorDesc(d["index"], d.get("name", ""), d["dtype"], d["shape"], q[0], q[1])

    def _run_litert(self, arrays):
        it = self._it
        for desc, a in zip(self.inputs, arrays):
            it.set_tensor(desc.index, a)
        it.invoke()
        return [np.array(it.get_tensor(d.index), copy=True) for d in self.outputs]

    def op_names(self):
        """Op names as the loaded interpreter reports them."""
        if self.kind == "litert-builtin-ref":
            return [o["op_name"] for o in self._it._get_ops_details()]
        return list(self.info.ops)

    # -- tflm
    def _init_tflm(self):
        from tflite_micro.python.tflite_micro import runtime

        arena = max(len(self.data) * 10, 4 << 20)
        self._tm = runtime.Interpreter.from_bytes(self.data, arena_size=arena)
        self.inputs = []
        self.outputs = []
        for k, t in enumerate(self.info.inputs):
            self.inputs.append(self._tm_desc(self._tm.get_input_details(k), t))
        for k, t in enumerate(self.info.outputs):
            self.outputs.append(self._tm_desc(self._tm.get_output_details(k), t))
        self._run = self._run_tflm

    def _tm_desc(self, d, tensor_index):
        q = d["quantization_parameters"]
        scale = float(q["scales"][0]) if len(q["scales"]) else 0.0
        zp = int(q["zero_points"][0]) if len(q["zero_points"]) else 0
        name = self.info.tensors[tensor_index]["name"]
        return TensorDesc(tensor_index, name, d["dtype"], d["shape"], scale, zp)

    def _run_tflm(self, arrays):
        for k, a in enumerate(arrays):
            self._tm.set_input(a, k)
        self._tm.invoke()
        outs = []
        for k, d in enumerate(self.outputs):
            outs.append(np.array(self._tm.get_output(k), copy=True).reshape(d.shape))
        return outs

    def run(self, arrays):
        arrays = [np.ascontiguousarray(a, dtype=d.dtype).reshape(d.shape)
                  for a, d in zip(arrays, self.inputs)]
        if len(arrays) != len(self.inputs):
            raise ValueError("model has %d inputs, got %d" % (len(self.inputs), len(arrays)))
        return self._run(arrays)


# --------------------------------------------------------------------------
# inputs


def stable_seed(*parts):
    return zlib.crc32("/".join(str(p) for p in parts).encode()) & 0x7FFFFFFF


def quantize_float(x, desc):
    info = np.iinfo(desc.dtype)
    q = np.round(np.asarray(x, np.float64) / desc.scale) + desc.zero_point
    return np.clip(q, info.min, info.max).astype(desc.dtype)


def random_inputs(oracle, name, n=20, extremes=True):
    """Seeded input sets: (label, [array per input]). Integer inputs cover the
    full type range; float inputs a range the model's QUANTIZE can represent
    plus 10% either side, and one set lying exactly on rounding midpoints."""
    sets = []
    descs = oracle.inputs
    ranges = []
    for k, d in enumerate(descs):
        if d.dtype.kind == "f":
            ranges.append(oracle.info.float_input_range(k))
        else:
            ranges.append(None)

    def one(rng, mode):
        arrs = []
        for d, r in zip(descs, ranges):
            if d.dtype.kind in "iu":
                info = np.iinfo(d.dtype)
                if mode == "min":
                    a = np.full(d.shape, info.min, d.dtype)
                elif mode == "max":
                    a = np.full(d.shape, info.max, d.dtype)
                else:
                    a = rng.integers(info.min, int(info.max) + 1, size=d.shape, dtype=np.int64)
                    a = a.astype(d.dtype)
            elif d.dtype.kind == "f":
                lo, hi, q = r
                if mode == "min":
                    a = np.full(d.shape, lo, d.dtype)
                elif mode == "max":
                    a = np.full(d.shape, hi, d.dtype)
                elif mode == "midpoints" and q is not None:
                    qi = {"INT8": (-128, 127), "UINT8": (0, 255), "INT16": (-32768, 32767)}
                    qlo, qhi = qi[q["type"]]
                    k = rng.integers(qlo, qhi, size=d.shape)
                    a = ((k - q["zero_point"] + 0.5) * q["scale"]).astype(d.dtype)
                else:
                    a = rng.uniform(lo, hi, size=d.shape).astype(d.dtype)
            elif d.dtype == np.bool_:
                a = rng.integers(0, 2, size=d.shape).astype(np.bool_)
            else:
                raise ValueError("no input generator for %s" % d.dtype)
            arrs.append(a)
        return arrs

    if extremes:
        sets.append(("all-min", one(None, "min")))
        sets.append(("all-max", one(None, "max")))
    for i in range(n):
        rng = np.random.default_rng(stable_seed(name, i))
        sets.append(("seed%d" % i, one(rng, "random")))
    if any(d.dtype.kind == "f" for d in descs):
        rng = np.random.default_rng(stable_seed(name, "midpoints"))
        sets.append(("midpoints", one(rng, "midpoints")))
    return sets


# --------------------------------------------------------------------------
# engine


def edgeq_path():
    return os.environ.get("EDGEQ") or os.path.join(REPO, "build", "edgeq")


def asan_path():
    return os.environ.get("EDGEQ_ASAN") or os.path.join(REPO, "build", "asan", "edgeq")


class EngineError(Exception):
    def __init__(self, cmd, returncode, stdout, stderr, why=None):
        self.cmd = cmd
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.why = why
        super().__init__(self.describe())

    def describe(self):
        s = "edgeq failed"
        if self.why:
            s += " (%s)" % self.why
        s += ": exit %s: %s" % (describe_rc(self.returncode), " ".join(self.cmd))
        err = (self.stderr or "").strip()
        if err:
            lines = err.splitlines()
            s += "\n  stderr: " + "\n  ".join(lines[:12])
            if len(lines) > 12:
                s += "\n  ... (%d more lines)" % (len(lines) - 12)
        return s


def describe_rc(rc):
    if rc is None:
        return "timeout"
    if rc < 0:
        try:
            return "%d (signal %s)" % (rc, signal.Signals(-rc).name)
        except ValueError:
            return "%d (signal %d)" % (rc, -rc)
    if rc == SANITIZER_EXIT:
        return "%d (sanitizer report)" % rc
    return str(rc)


def run_edgeq(args, binary=None, timeout=None):
    """Run edgeq with sanitizer-friendly env; returns CompletedProcess (text)
    with returncode None on timeout."""
    binary = binary or edgeq_path()
    env = dict(os.environ)
    env.update(SAN_ENV)
    cmd = [binary] + [str(a) for a in args]
    try:
        return subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, env=env,
                              timeout=timeout or ENGINE_TIMEOUT, errors="replace")
    except subprocess.TimeoutExpired as e:
        return subprocess.CompletedProcess(cmd, None, e.stdout or "", e.stderr or "")


def engine_run(model, inputs, outputs=None, binary=None, workdir=None):
    """Run `edgeq run model --input i0.npy ... --output o0.bin ...` and return
    the outputs as numpy arrays of the oracle's dtype/shape. `outputs` is the
    oracle's list of output TensorDesc (an Oracle is built when omitted).
    Raises EngineError on a non-zero exit, a timeout or a wrong byte count."""
    if outputs is None:
        outputs = Oracle(model).outputs
    with tempfile.TemporaryDirectory(prefix="edgeq-conf-", dir=workdir) as td:
        args = ["run", os.path.abspath(model)]
        for k, a in enumerate(inputs):
            p = os.path.join(td, "i%d.npy" % k)
            np.save(p, np.ascontiguousarray(a))
            args += ["--input", p]
        outs = [os.path.join(td, "o%d.bin" % k) for k in range(len(outputs))]
        for p in outs:
            args += ["--output", p]
        r = run_edgeq(args, binary=binary)
        cmd = [binary or edgeq_path()] + args
        if r.returncode != 0:
            raise EngineError(cmd, r.returncode, r.stdout, r.stderr)
        res = []
        for p, d in zip(outs, outputs):
            if not os.path.exists(p):
                raise EngineError(cmd, r.returncode, r.stdout, r.stderr,
                                  why="no output file %s" % os.path.basename(p))
            with open(p, "rb") as f:
                b = f.read()
            if len(b) != d.nbytes:
                raise EngineError(cmd, r.returncode, r.stdout, r.stderr,
                                  why="%s holds %d bytes, expected %d (%r)"
                                  % (os.path.basename(p), len(b), d.nbytes, d))
            res.append(np.frombuffer(b, dtype=d.dtype).reshape(d.shape).copy())
        return res


def engine_run_many(model, input_sets, outputs, binary=None, workers=None):
    """engine_run over many input sets concurrently; returns a list with, per
    set, either the outputs or the EngineError."""
    workers = workers or int(os.environ.get("EDGEQ_JOBS", "0")) or (os.cpu_count() or 2)

    def job(inputs):
        try:
            return engine_run(model, inputs, outputs, binary=binary)
        except EngineError as e:
            return e

    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as ex:
        return list(ex.map(job, input_sets))


# --------------------------------------------------------------------------
# comparison


def compare_bytes(expected, got):
    """None when the bytes are equal; otherwise a description of the first
    difference: max abs diff, differing elements/bytes, first index."""
    e = np.ascontiguousarray(expected)
    g = np.ascontiguousarray(got)
    if e.dtype != g.dtype or e.shape != g.shape:
        return "dtype/shape differ: expected %s%s, got %s%s" % (e.dtype, e.shape, g.dtype,
                                                                 g.shape)
    eb = e.view(np.uint8).reshape(-1)
    gb = g.view(np.uint8).reshape(-1)
    if np.array_equal(eb, gb):
        return None
    nbytes = int(np.count_nonzero(eb != gb))
    itype = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[e.dtype.itemsize]
    neq = e.view(itype) != g.view(itype)
    if e.dtype.kind == "f":
        diff = np.abs(e.astype(np.float64) - g.astype(np.float64))
        maxd = float(np.nanmax(np.where(neq, diff, 0.0)))
    else:
        diff = np.abs(e.astype(np.int64) - g.astype(np.int64))
        maxd = int(diff.max())
    idx = np.argwhere(neq)
    first = tuple(int(i) for i in idx[0])
    return ("%d of %d elements differ (%d bytes), max abs diff %s, first at index %s: "
            "expected %s got %s" % (len(idx), e.size, nbytes, maxd, list(first),
                                    e[first].item(), g[first].item()))


def check_against_oracle(model, oracle, input_sets, label, binary=None, max_report=6):
    """Run every input set through oracle and engine; return a list of failure
    strings (empty when all outputs are byte-identical)."""
    # engine subprocesses run in worker threads while the oracle runs here
    workers = int(os.environ.get("EDGEQ_JOBS", "0")) or (os.cpu_count() or 2)

    def job(inputs):
        try:
            return engine_run(model, inputs, oracle.outputs, binary=binary)
        except EngineError as e:
            return e

    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as ex:
        futs = [ex.submit(job, arrs) for _, arrs in input_sets]
        expected = [oracle.run(arrs) for _, arrs in input_sets]
        got = [f.result() for f in futs]
    failures = []
    for (name, _), exp, res in zip(input_sets, expected, got):
        if isinstance(res, EngineError):
            failures.append("%s [%s]: %s" % (label, name, res.describe()))
            continue
        for k, (e, g) in enumerate(zip(exp, res)):
            msg = compare_bytes(e, g)
            if msg:
                failures.append("%s [%s] output %d: %s" % (label, name, k, msg))
    if len(failures) > max_report:
        more = len(failures) - max_report
        failures = failures[:max_report] + ["... and %d more failing input sets" % more]
    return failures
