#!/usr/bin/env python3
"""formulanethand: hand-made PP-FormulaNet configs for what fuzz.py leaves
alone, each the reference `a` config with fields changed:
OUT/pp_formulanet_PPFormulaNetForConditionalGeneration/hand-1-K/config.json.
usage: formulanethand.py REFERENCE/layouts-more OUT"""
import json, os, sys
ref, out = sys.argv[1], sys.argv[2]
base = json.load(open(os.path.join(ref, 'pp_formulanet/PPFormulaNetForConditionalGeneration/a/config.json')))
hands = [
    {'text_config.tie_word_embeddings': True},
    {'tie_word_embeddings': True},
    {'vision_config.window_size': 0},
    {'vision_config.image_size': 256, 'vision_config.patch_size': 8},
    {'text_config.max_position_embeddings': 100, 'text_config.scale_embedding': False},
    {'vision_config.use_rel_pos': False, 'vision_config.qkv_bias': False, 'vision_config.use_abs_pos': False},
    {'vision_config.global_attn_indexes': [], 'vision_config.output_channels': 128, 'vision_config.post_conv_in_channels': 128},
    None,  # no sub-configs: every default (8 decoder layers, a 12-layer encoder)
]
for k, h in enumerate(hands):
    if h is None:
        c = {'architectures': base['architectures'], 'model_type': base['model_type'], 'dtype': base['dtype']}
    else:
        c = json.loads(json.dumps(base))
        for f, v in h.items():
            if '.' in f:
                a, b = f.split('.')
                c[a][b] = v
            else:
                c[f] = v
    d = os.path.join(out, 'pp_formulanet_PPFormulaNetForConditionalGeneration', 'hand-1-%d' % k)
    os.makedirs(d, exist_ok=True)
    json.dump(c, open(d + '/config.json', 'w'), indent=1)
