#!/usr/bin/env python3
"""ocrrecfuzz: random PP-OCR recognizer configs: the backbone_config's block_configs
(5 stages), scale, divisor, stem, reduction, branches and out_indices, and the
SVTR neck's width, heads, depth, ratio, kernel, qkv_bias, characters drawn.
usage: ocrrecfuzz.py CONFIG OUT SEED N"""
import json, random, os, sys
from ppocrfuzz import lcnet_v3
base, out, seed, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
b = json.load(open(base))
for k in range(n):
    r = random.Random(seed * 1000 + k)
    c = json.loads(json.dumps(b))
    bb = c['backbone_config']
    lcnet_v3(r, bb)  # the same draws, in the same order, as ppocrfuzz's PP-LCNet v3
    idx = sorted(r.sample(range(1, 6), r.randint(1, 5)))
    names = ['stem'] + ['stage%d' % i for i in range(1, 6)]
    bb['stage_names'] = names; bb['out_indices'] = idx; bb['out_features'] = [names[i] for i in idx]
    h = r.choice([2, 4]); c['num_attention_heads'] = h; c['hidden_size'] = h * r.choice([8, 16, 24])
    c['depth'] = r.randint(0, 3); c['mlp_ratio'] = r.choice([1.0, 2.0, 1.5, 4.0])
    c['head_out_channels'] = r.choice([37, 100, 500]); c['qkv_bias'] = r.random() < 0.5
    c['conv_kernel_size'] = r.choice([[1, 3], [3, 3], [1, 1], [3, 5]])
    c['dtype'] = r.choice(['bfloat16', 'float16', 'float32'])
    d = os.path.join(out, 'fuzz-%d-%d' % (seed, k)); os.makedirs(d, exist_ok=True)
    json.dump(c, open(os.path.join(d, 'config.json'), 'w'), indent=1)
