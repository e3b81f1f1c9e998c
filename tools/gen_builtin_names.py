#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Regenerate engine/src/ops/builtin_names.inc from the TFLite schema.

usage: tools/gen_builtin_names.py ../shared/models/tflite_schema.fbs
"""
import re
import sys

src = open(sys.argv[1]).read()
body = re.search(r"enum BuiltinOperator : int32 \{(.*?)\n\}", src, re.S).group(1)
body = re.sub(r"//[^\n]*", "", body)
pairs = [(n, int(v)) for n, v in re.findall(r"([A-Z_0-9]+)\s*=\s*(-?\d+)", body) if int(v) >= 0]
names = ["0"] * (max(v for _, v in pairs) + 1)
for n, v in pairs:
    names[v] = '"%s"' % n
out = "/* SPDX-License-Identifier: Apache-2.0 */\n"
out += "/* Generated from tflite_schema.fbs (enum BuiltinOperator) by tools/gen_builtin_names.py. */\n"
out += "    " + ",\n    ".join(names) + "\n"
open("engine/src/ops/builtin_names.inc", "w").write(out)
