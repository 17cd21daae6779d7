#!/usr/bin/env python3
"""lcnetv4fuzz: random PP-LCNet v4 configs: stem widths and type, block_configs
(in == out half the time, strides 1, 2 or [2, 1]), reduction, learnable affine
blocks, out_indices. usage: lcnetv4fuzz.py CONFIG OUT SEED N"""
import json, random, os, sys
from ppocrfuzz import lcnet_v4_blocks
base, out, seed, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
b = json.load(open(base))
for k in range(n):
    r = random.Random(seed * 1000 + k)
    c = json.loads(json.dumps(b))
    ns = len(b['block_configs'])
    lcnet_v4_blocks(r, c, ns)
    idx = sorted(r.sample(range(1, ns + 1), r.randint(1, ns)))
    names = ['stem'] + ['stage%d' % i for i in range(1, ns + 1)]
    c['stage_names'] = names; c['out_indices'] = idx; c['out_features'] = [names[i] for i in idx]
    c['dtype'] = r.choice(['bfloat16', 'float16', 'float32'])
    d = os.path.join(out, 'fuzz-%d-%d' % (seed, k)); os.makedirs(d, exist_ok=True)
    json.dump(c, open(os.path.join(d, 'config.json'), 'w'), indent=1)
