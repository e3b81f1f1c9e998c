# SPDX-License-Identifier: Apache-2.0
"""The engine's shape, counted by tools/check_layering.py: ops never name a
CPU (engine/src/ops/*.c), the engine includes nothing outside engine/, and
no include or call loops between the engine's files (docs/kernels.md). The
quantizer's counts are checked where its restructuring lands."""

import json
import subprocess
import sys

from shiplib import BUILD, REPO, make

ENGINE_COUNTS = ("cpu_names_in_ops", "engine_outward")


def layering():
    make("lib")
    out = subprocess.run([sys.executable, "tools/check_layering.py", "--json", "--build", BUILD],
                         cwd=REPO, capture_output=True, text=True).stdout
    return json.loads(out)


def test_engine_layering():
    found = layering()
    for key in ENGINE_COUNTS:
        assert found[key]["count"] == 0, "%s: %s" % (key, found[key]["items"])
    for key in ("include_loops", "call_loops"):
        engine = [c for c in found[key]["items"] if c.startswith("engine/") or "(no objects" in c]
        assert not engine, "%s in the engine: %s" % (key, engine)


def test_counts_can_fail():
    """The CPU-name count sees a CPU name in an op file (the check is live)."""
    import re
    sys.path.insert(0, str(REPO) + "/tools")
    import check_layering
    assert check_layering.CPU_RE.search("if (p->x86) run_avx2();")
    assert not check_layering.CPU_RE.search("edge_conv_s8_run(p, &d);")
    assert re.search(check_layering.CPU_RE, "EDGE_SYSTOLIC_DSP")
