#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Turn an 8-bit grayscale BMP into raw tensor bytes (top-down rows).

person_detect's sample images store the int8 input values as the pixel
bytes: skip the header and palette (the pixel-data offset in the header),
and flip the bottom-up rows.

usage: bmp_to_input.py image.bmp out.bin
"""
import struct
import sys

data = open(sys.argv[1], "rb").read()
if data[:2] != b"BM":
    sys.exit("%s: not a BMP file" % sys.argv[1])
offset = struct.unpack_from("<I", data, 10)[0]
width, height = struct.unpack_from("<ii", data, 18)
bpp = struct.unpack_from("<H", data, 28)[0]
if bpp != 8:
    sys.exit("%s: %d bits per pixel; expected 8-bit grayscale" % (sys.argv[1], bpp))
stride = (width + 3) & ~3
rows = [data[offset + r * stride: offset + r * stride + width] for r in range(abs(height))]
if height > 0:
    rows.reverse()
open(sys.argv[2], "wb").write(b"".join(rows))
