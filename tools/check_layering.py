#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The shape the design asks for (docs/contributing.md), counted.

    python3 tools/check_layering.py [--build build] [--json]

Counts, each of which must be 0 on main:
  cpu_names_in_ops     CPU/SIMD names in engine/src/ops/**/*.c (ops never see a CPU)
  quantize_top_c_over  .c files directly in quantize/ beyond 6 (folders by job)
  private_from_quantize  engine-private headers (engine/src/...) included from quantize/
  engine_outward       engine/ files including anything outside engine/
  include_loops        cycles in the "#include" graph between files
  call_loops           cycles between source files in the "uses a symbol defined in"
                       graph, read from the objects of a build (nm)
Prints each offender; exit 1 when any count is not 0.
"""
import argparse
import json
import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC_DIRS = ["engine", "quantize", "boards", "examples", "fuzz", "bench"]
INCLUDE_DIRS = ["engine/include", "engine/src", "quantize"]
CPU_RE = re.compile(r"\b(x86|avx2?|avx512[a-z_]*|vnni|dsp|neon|mve|sdot|smlad|immintrin|arm_acle|"
                    r"EDGE_SYSTOLIC_[A-Z0-9_]+|EDGE_X86_[A-Z_]+|__x86_64__|__aarch64__|__ARM_[A-Z_0-9]+)\b",
                    re.I)


def sources(exts=(".c", ".h", ".inc")):
    for d in SRC_DIRS:
        for root, _dirs, files in os.walk(os.path.join(REPO, d)):
            for f in sorted(files):
                if f.endswith(exts):
                    yield os.path.relpath(os.path.join(root, f), REPO)


def resolve(src, inc):
    for base in [os.path.dirname(src)] + INCLUDE_DIRS:
        p = os.path.normpath(os.path.join(base, inc))
        if os.path.isfile(os.path.join(REPO, p)):
            return p
    return None


def include_graph():
    g = {}
    for f in sources():
        text = open(os.path.join(REPO, f), errors="replace").read()
        g[f] = set()
        for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
            r = resolve(f, inc)
            if r:
                g[f].add(r)
    return g


def sccs(g):
    """Tarjan: the strongly connected components with more than one node (or a self loop)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in g.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in g.get(v, ()):
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def call_graph(build):
    """Source file -> source files whose global symbols it uses, from build/**.o."""
    objs = []
    for d in ("engine", "quantize"):
        root = os.path.join(build, d)
        for r, _dirs, files in os.walk(root):
            objs += [os.path.join(r, f) for f in files if f.endswith(".o")]
    defined, used = {}, {}
    for o in objs:
        src = os.path.relpath(o, build)[:-2] + ".c"
        if not os.path.isfile(os.path.join(REPO, src)):
            continue  # a stale object: its source moved or was removed
        out = subprocess.run(["nm", "-g", o], capture_output=True, text=True).stdout
        used[src] = set()
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == "U":
                used[src].add(parts[1])
            elif len(parts) == 3 and parts[1] in "TDRBCVW":
                defined.setdefault(parts[2], src)
    return {s: {defined[u] for u in us if u in defined and defined[u] != s} for s, us in used.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    found = {}

    ops = [f for f in sources((".c",)) if f.startswith("engine/src/ops/")]
    found["cpu_names_in_ops"] = ["%s: %s" % (f, m.group(0)) for f in ops
                                 for m in CPU_RE.finditer(open(os.path.join(REPO, f)).read())]
    top = sorted(f for f in os.listdir(os.path.join(REPO, "quantize")) if f.endswith(".c"))
    found["quantize_top_c_over"] = top[6:] if len(top) > 6 else []
    g = include_graph()
    found["private_from_quantize"] = ["%s -> %s" % (f, t) for f, ts in sorted(g.items())
                                      if f.startswith("quantize/")
                                      for t in sorted(ts) if t.startswith("engine/src/")]
    found["engine_outward"] = ["%s -> %s" % (f, t) for f, ts in sorted(g.items())
                               if f.startswith("engine/") for t in sorted(ts) if not t.startswith("engine/")]
    found["include_loops"] = [" <-> ".join(c) for c in sccs(g)]
    if os.path.isdir(os.path.join(a.build, "engine")):
        found["call_loops"] = [" <-> ".join(c) for c in sccs(call_graph(a.build))]
    else:
        found["call_loops"] = ["(no objects in %s: run make first)" % a.build]

    if a.json:
        print(json.dumps({k: {"count": len(v), "items": v} for k, v in found.items()}, indent=1))
    else:
        for k, v in found.items():
            print("%-22s %d" % (k, len(v)))
            for item in v[:40]:
                print("    " + item)
            if len(v) > 40:
                print("    ... %d more" % (len(v) - 40))
    return 1 if any(found.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
