#!/usr/bin/env python3
"""lcnetv4fuzz: random PP-LCNet v4 configs: stem widths and type, block_configs
(in == out half the time, strides 1, 2 or [2, 1]), reduction, learnable affine
blocks, out_indices. usage: lcnetv4fuzz.py CONFIG OUT SEED N"""
import json, random, os, sys
base, out, seed, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
b = json.load(open(base))
for k in range(n):
    r = random.Random(seed * 1000 + k)
    c = json.loads(json.dumps(b))
    ns = len(b['block_configs'])
    sc = [3, r.choice([8, 16, 24]), r.choice([16, 32])]
    c['stem_channels'] = sc
    bc = []; prev = sc[2]
    for s in range(ns):
        st = []
        for j in range(r.randint(1, 3)):
            o = prev if r.random() < 0.5 else r.choice([8, 16, 24, 32, 48])
            st.append([r.choice([3, 5]), prev, o, r.choice([1, 1, 2, [2, 1]]), r.random() < 0.4]); prev = o
        bc.append(st)
    c['block_configs'] = bc; c['depths'] = [len(s) for s in bc]
    c['reduction'] = r.choice([2, 4, 8]); c['stem_type'] = r.choice(['large', 'small'])
    c['use_learnable_affine_block'] = r.random() < 0.5
    idx = sorted(r.sample(range(1, ns + 1), r.randint(1, ns)))
    names = ['stem'] + ['stage%d' % i for i in range(1, ns + 1)]
    c['stage_names'] = names; c['out_indices'] = idx; c['out_features'] = [names[i] for i in idx]
    c['dtype'] = r.choice(['bfloat16', 'float16', 'float32'])
    d = os.path.join(out, 'fuzz-%d-%d' % (seed, k)); os.makedirs(d, exist_ok=True)
    json.dump(c, open(os.path.join(d, 'config.json'), 'w'), indent=1)
