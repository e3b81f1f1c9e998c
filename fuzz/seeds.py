#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""fuzz/seeds.py SEEDDIR: seed corpora for the Keras harnesses.

keras_config: the model config JSON of every fixture (.h5 attribute
`model_config`, .keras member config.json), followed by a NUL and a weight
trailer the harness's fake weight reader serves (see fuzz_keras_config.c).
keras_zip: the fixture .keras files themselves.
"""
import json, os, shutil, sys, zipfile, glob

out = sys.argv[1]
fix = os.path.join(os.path.dirname(__file__), '..', 'tests', 'fixtures', 'keras')
os.makedirs(os.path.join(out, 'keras_config'), exist_ok=True)
os.makedirs(os.path.join(out, 'keras_zip'), exist_ok=True)
for p in sorted(glob.glob(os.path.join(fix, '*.keras'))):
    shutil.copy(p, os.path.join(out, 'keras_zip'))
    try:
        cfg = zipfile.ZipFile(p).read('config.json')
    except Exception:
        continue
    open(os.path.join(out, 'keras_config', os.path.basename(p) + '.json'), 'wb').write(cfg + b'\0')
try:
    import h5py
except ImportError:
    h5py = None


def trailer(path):
    """The fake-weights trailer for a legacy .h5: one record per layer
    with weights, in saved order (nested models: grouped by the weight
    name's layer component)."""
    import struct
    recs = []
    try:
        with h5py.File(path, 'r') as f:
            mw = f['model_weights'] if 'model_weights' in f else f
            for ln in mw.attrs.get('layer_names', []):
                ln = ln.decode() if isinstance(ln, bytes) else ln
                g = mw[ln]
                groups = {}
                for wn in g.attrs.get('weight_names', []):
                    wn = wn.decode() if isinstance(wn, bytes) else wn
                    key = wn.rsplit('/', 1)[0]
                    groups.setdefault(key, []).append(g[wn].shape)
                for shapes in groups.values():
                    rec = bytes([len(shapes)])
                    for sh in shapes:
                        rec += bytes([len(sh)]) + b''.join(struct.pack('<H', min(d, 0xffef)) for d in sh)
                    recs.append(rec)
    except Exception:
        pass
    return b''.join(recs)


if h5py:
    for p in sorted(glob.glob(os.path.join(fix, '*.keras'))):
        h5 = p[:-len('.keras')] + '.h5'
        j = os.path.join(out, 'keras_config', os.path.basename(p) + '.json')
        if os.path.exists(h5) and os.path.exists(j):
            open(j, 'ab').write(trailer(h5))
    for p in sorted(glob.glob(os.path.join(fix, '*.h5'))):
        try:
            with h5py.File(p, 'r') as f:
                cfg = f.attrs.get('model_config')
        except Exception:
            continue
        if cfg is None:
            continue
        if isinstance(cfg, str):
            cfg = cfg.encode()
        open(os.path.join(out, 'keras_config', os.path.basename(p) + '.json'), 'wb').write(
            bytes(cfg) + b'\0' + trailer(p))

# Calibration loaders: the repository's .npy fixtures and sample images,
# plus small files of every dtype / format variant the readers accept.
import io
for h in ('npy', 'image'):
    os.makedirs(os.path.join(out, h), exist_ok=True)
repo = os.path.join(os.path.dirname(__file__), '..')
for p in sorted(glob.glob(os.path.join(repo, 'tests', '**', '*.npy'), recursive=True)):
    if os.path.getsize(p) <= 65536:
        shutil.copy(p, os.path.join(out, 'npy', os.path.basename(p)))
for p in sorted(glob.glob(os.path.join(repo, 'models', '*', 'sample_[07].pgm'))):
    shutil.copy(p, os.path.join(out, 'image', os.path.basename(os.path.dirname(p)) + '_' + os.path.basename(p)))
try:
    import numpy as np
except ImportError:
    np = None
if np is not None:
    rng = np.random.default_rng(22)
    for dt in ('?', 'i1', 'i2', 'i4', 'i8', 'u1', 'u2', 'u4', 'u8', 'f2', 'f4', 'f8'):
        for shape in ((), (3,), (2, 3, 1)):
            a = (rng.standard_normal(shape) * 10).astype(dt)
            b = io.BytesIO()
            np.save(b, a)
            open(os.path.join(out, 'npy', 'gen_%s_%d.npy' % (dt.replace('?', 'b1'), len(shape))), 'wb').write(
                b.getvalue())
    b = io.BytesIO()
    np.lib.format.write_array(b, np.arange(6, dtype='<f4').reshape(2, 3), version=(2, 0))
    open(os.path.join(out, 'npy', 'gen_v2.npy'), 'wb').write(b.getvalue())
    try:
        from PIL import Image
        px = (rng.random((6, 5, 3)) * 255).astype('uint8')
        variants = [('RGB', 'PNG', {}), ('L', 'PNG', {}), ('P', 'PNG', {}), ('LA', 'PNG', {}),
                    ('RGBA', 'PNG', {}), ('RGB', 'PNG', {'interlace': 1}), ('1', 'PNG', {}),
                    ('I;16', 'PNG', {}), ('RGB', 'BMP', {}), ('L', 'BMP', {}), ('P', 'BMP', {}),
                    ('1', 'BMP', {}), ('RGBA', 'BMP', {}), ('RGB', 'PPM', {}), ('L', 'PPM', {})]
        for k, (mode, fmt, kw) in enumerate(variants):
            im = Image.fromarray(px).convert(mode)
            b = io.BytesIO()
            im.save(b, format=fmt, **kw)
            open(os.path.join(out, 'image', 'gen_%02d_%s.%s' % (k, mode.replace(';', ''), fmt.lower())),
                 'wb').write(b.getvalue())
        # ASCII PNM (P2, P3) and a 16-bit binary PGM by hand.
        open(os.path.join(out, 'image', 'gen_p2.pgm'), 'wb').write(b'P2\n# c\n3 2\n255\n0 1 2\n3 4 255\n')
        open(os.path.join(out, 'image', 'gen_p3.ppm'), 'wb').write(b'P3\n2 1\n15\n1 2 3 4 5 15\n')
        open(os.path.join(out, 'image', 'gen_p5_16.pgm'), 'wb').write(b'P5\n2 2\n65535\n' + bytes(range(8)))
    except ImportError:
        pass

# The whole Keras loader (fuzz_keras_h5): the fixture .h5 and .keras files.
os.makedirs(os.path.join(out, 'keras_h5'), exist_ok=True)
for p in sorted(glob.glob(os.path.join(fix, '*.h5')) + glob.glob(os.path.join(fix, '*.keras'))):
    shutil.copy(p, os.path.join(out, 'keras_h5'))

# edgeq's command line (fuzz_cli): argument vectors, NUL-separated. The
# file names name nothing in the harness's empty working directory.
os.makedirs(os.path.join(out, 'cli'), exist_ok=True)
argvs = [
    ['--help'], ['--version'], ['help', 'run'], ['help', 'inspect'], ['help', 'nope'], ['bogus'], ['-x'],
    ['run', '--help'], ['inspect', '--help'], ['export', '--help'], ['float-run', '--help'],
    ['keras-dump', '--help'],
    ['run', 'm.tflite', '--input', 'a.npy', '--input', 'b.bin', '--output', 'o.npy', '--repeat', '10',
     '--arena', '64KiB', '--profile', '--labels', 'l.txt', '--json'],
    ['run', 'm.tflite', '--input=a.npy', '--arena=1M', '--repeat=0'],
    ['inspect', '--json', 'm.tflite'], ['inspect', 'a.npy'],
    ['export', '--c', 'm.tflite'], ['export', '--ops', 'm.tflite', 'n.tflite'],
    ['keras-dump', 'm.h5', '--json', '--weights', 'dir'],
    ['float-run', 'm.keras', '--input', 'a.npy'],
    ['m.h5', 'o.tflite', '--calib', 'dir', '--io', 'int8', '--dtype', 'bf16', '--calib-count', '100',
     '--per-tensor', '--report', 'r.json'],
    ['--io', 'uint8', 'm.keras', 'o.tflite'], ['m.keras', 'o.tflite', '--dtype', 'f32', '--allow-nonfinite'],
]
for k, a in enumerate(argvs):
    open(os.path.join(out, 'cli', 'argv%02d' % k), 'wb').write(b'\0'.join(x.encode() for x in a))
