#!/usr/bin/env python3
"""lcnetfuzz: random PP-LCNet configs (5 stages of 1-3 blocks with random kernels,
widths, strides and squeeze-excite flags; scale, divisor, stem, reduction,
class_expand, labels, out_indices drawn). usage: lcnetfuzz.py CONFIG OUT SEED N"""
import json, random, os, sys
base, out, seed, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
b = json.load(open(base))
for k in range(n):
    r = random.Random(seed * 1000 + k)
    c = dict(b)
    ns = 5
    bc = []
    prev = r.choice([8, 16, 24])
    for s in range(ns):
        st = []
        for j in range(r.randint(1, 3)):
            o = r.choice([8, 16, 24, 32, 48, 64])
            st.append([r.choice([3, 5]), prev, o, r.choice([1, 2]), r.random() < 0.4])
            prev = o
        bc.append(st)
    c['block_configs'] = bc
    c['depths'] = [len(s) for s in bc]
    c['scale'] = r.choice([0.25, 0.5, 0.75, 1.0, 1.5, 2.0])
    c['divisor'] = r.choice([4, 8, 16])
    c['stem_channels'] = r.choice([8, 16, 24])
    c['reduction'] = r.choice([2, 4, 8])
    c['class_expand'] = r.choice([32, 64, 100])
    names = ['stem'] + ['stage%d' % i for i in range(1, ns + 1)]
    idx = sorted(r.sample(range(1, ns + 1), r.randint(1, ns)))
    c['stage_names'] = names; c['out_indices'] = idx; c['out_features'] = [names[i] for i in idx]
    if r.random() < 0.5:
        m = r.randint(2, 6); c['id2label'] = {str(i): 'L%d' % i for i in range(m)}; c['label2id'] = {'L%d' % i: i for i in range(m)}
    c['dtype'] = r.choice(['bfloat16', 'float16', 'float32'])
    d = os.path.join(out, 'fuzz-%d-%d' % (seed, k)); os.makedirs(d, exist_ok=True)
    json.dump(c, open(os.path.join(d, 'config.json'), 'w'), indent=1)
