#!/usr/bin/env python3
"""xcodec2fix: repair fuzz.py's X-Codec 2 configs in place, for
fuzz-layouts-nc1.tar.gz.

  xcodec2fix.py CONFIG.json...

fuzz.py takes downsampling_ratios for a layer-index list and draws
zeros: they are redrawn as strides 1-5 (seeded by the path as given:
the archive's were /tmp/nc1/fuzz2/Xcodec2Model/fuzz-2-K/config.json,
from fuzz.py -n 60 --seed 2 --out /tmp/nc1/fuzz2 on the reference
layouts-more/xcodec2/Xcodec2Model). The semantic model's
conv_depthwise_kernel_size is made odd and add_adapter set where
use_intermediate_ffn_before_adapter is (transformers refuses both)."""
import json, random, sys

for p in sys.argv[1:]:
    c = json.load(open(p))
    s = c['semantic_model_config']
    k = s.get('conv_depthwise_kernel_size', 31)
    if k % 2 == 0:
        s['conv_depthwise_kernel_size'] = k + 1
    if s.get('use_intermediate_ffn_before_adapter') and not s.get('add_adapter'):
        s['add_adapter'] = True
    r = random.Random(p)
    c['downsampling_ratios'] = [r.choice([1, 2, 3, 4, 5]) for _ in c['downsampling_ratios']]
    json.dump(c, open(p, 'w'), indent=2)
