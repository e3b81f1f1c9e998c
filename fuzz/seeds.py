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
