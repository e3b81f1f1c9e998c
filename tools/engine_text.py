#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""engine_text.py — the engine code a linked program carries, from its GNU
ld map (-Wl,-Map): the .text input sections the map lists from libedge.a's
members and from an op registry object linked beside it (registry.o), after
--gc-sections.

    tools/engine_text.py build/cortex-m4/firmware-kws.elf.map ...
    tools/engine_text.py --objects MAP      bytes per object, largest first
    tools/engine_text.py --functions MAP    bytes per function section

prints, per map, the bytes and the map's name; `make size` and `make bench`
use it. The per-object and per-function listings are for size work."""
import os
import re
import sys


def engine_text(map_path, functions=False):
    """Returns (total bytes, {object: bytes}), or with functions=True
    (total bytes, {(object, section): bytes})."""
    with open(map_path) as fh:
        txt = fh.read()
    body = txt[txt.find("Linker script and memory map"):]
    per, section = {}, None
    for line in body.splitlines():
        m = re.match(r"^ (\.\S+)\s*$", line)
        if m:  # a long section name: its address and size follow on the next line
            section = m.group(1)
            continue
        m = re.match(r"^ (\.\S+)?\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S+)", line)
        if not m:
            continue
        name, size, src = m.group(1) or section, int(m.group(2), 16), m.group(3)
        section = None
        if not name or not (name == ".text" or name.startswith(".text.")):
            continue
        base = os.path.basename(src)
        if base.startswith("libedge.a(") or base == "registry.o":
            obj = base[len("libedge.a("):-1] if base.startswith("libedge.a(") else base
            key = (obj, name) if functions else obj
            per[key] = per.get(key, 0) + size
    return sum(per.values()), per


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    mode = argv[1] if argv[1] in ("--objects", "--functions") else None
    paths = argv[2:] if mode else argv[1:]
    for path in paths:
        total, per = engine_text(path, functions=mode == "--functions")
        print(total, path)
        for key, size in sorted(per.items(), key=lambda kv: -kv[1]) if mode else ():
            print(f"{size:8d}  {key if mode == '--objects' else key[0] + ' ' + key[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
