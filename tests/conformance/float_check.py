# SPDX-License-Identifier: Apache-2.0
"""Float comparison for the float32 / bfloat16 engine paths.

The float engine is checked against the oracle (ai_edge_litert BUILTIN_REF)
by relative error per output: max|engine - oracle| / max|oracle| (an
all-zero oracle output must be matched exactly). `check_float` runs every
input set through both and returns failure strings plus the worst error
seen, so tests can assert and report the figure.
"""

import concurrent.futures
import os

import numpy as np

import oracle

TOL = 1e-5


def rel_err(expected, got):
    e = np.asarray(expected, np.float64)
    g = np.asarray(got, np.float64)
    if e.shape != g.shape:
        return float("inf")
    if np.isnan(e).any() or np.isnan(g).any():
        same = np.array_equal(np.isnan(e), np.isnan(g))
        if not same:
            return float("inf")
        e = np.where(np.isnan(e), 0.0, e)
        g = np.where(np.isnan(g), 0.0, g)
    scale = float(np.max(np.abs(e))) if e.size else 0.0
    diff = float(np.max(np.abs(e - g))) if e.size else 0.0
    if scale == 0.0:
        return 0.0 if diff == 0.0 else float("inf")
    return diff / scale


def check_float(model, orc, input_sets, label, binary=None, tol=TOL, expected_fn=None,
                outputs=None):
    """Engine vs oracle on every input set. expected_fn(arrays) -> outputs
    replaces orc.run when the reference is computed otherwise (the bf16
    tests run the oracle on a different model). Returns (failures, worst)."""
    outputs = outputs or orc.outputs
    workers = int(os.environ.get("EDGEQ_JOBS", "0")) or (os.cpu_count() or 2)
    run = expected_fn or orc.run

    def job(inputs):
        try:
            return oracle.engine_run(model, inputs, outputs, binary=binary)
        except oracle.EngineError as e:
            return e

    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as ex:
        futs = [ex.submit(job, arrs) for _, arrs in input_sets]
        expected = [run(arrs) for _, arrs in input_sets]
        got = [f.result() for f in futs]
    failures, worst = [], 0.0
    for (name, _), exp, res in zip(input_sets, expected, got):
        if isinstance(res, oracle.EngineError):
            failures.append("%s [%s]: %s" % (label, name, res.describe()))
            continue
        for k, (e, g) in enumerate(zip(exp, res)):
            if e.dtype.kind != "f":
                if not np.array_equal(e, g):
                    failures.append("%s [%s] output %d: %s" % (label, name, k,
                                                               oracle.compare_bytes(e, g)))
                continue
            r = rel_err(e, g)
            worst = max(worst, r)
            if not r <= tol:
                i = int(np.argmax(np.abs(np.asarray(e, np.float64) - np.asarray(g, np.float64))))
                failures.append("%s [%s] output %d: max rel error %.3g > %g (worst at flat "
                                "index %d: expected %r got %r)" % (label, name, k, r, tol, i,
                                                                   e.reshape(-1)[i].item(),
                                                                   g.reshape(-1)[i].item()))
    return failures, worst
