#!/usr/bin/env python3
"""detrfix: make fuzzed DETR-like configs buildable: the backbone_config's
stage_names for its stage count, out_indices a sorted subset (seeded),
out_features matching; no timm / pretrained backbone. In place.
usage: detrfix.py SEED DIR..."""
from fixconf import each_config, offline_backbone
for rng, c in each_config():
    offline_backbone(c)
    bc = c.get('backbone_config')
    if isinstance(bc, dict):
        if bc.get('model_type') == 'hgnet_v2':
            n = len(bc.get('stage_in_channels', [48, 128, 512, 1024]))
            for f in ('stage_mid_channels', 'stage_out_channels', 'stage_num_blocks', 'stage_numb_of_layers',
                      'stage_downsample', 'stage_light_block', 'stage_kernel_size'):
                if f in bc and len(bc[f]) < n:
                    bc[f] = (bc[f] * n)[:n]
            hs = bc.get('hidden_sizes', [256, 512, 1024, 2048])
            if len(hs) < n:
                bc['hidden_sizes'] = (hs * n)[:n]
        else:
            n = len(bc.get('depths', bc.get('hidden_sizes', [1, 1, 1, 1])))
        bc['stage_names'] = ['stem'] + ['stage%d' % i for i in range(1, n + 1)]
        want = len(c.get('decoder_in_channels', [256, 256, 256]))
        idx = list(range(0, n + 1))
        m = min(want, len(idx))
        oi = sorted(rng.sample(idx[1:], min(m, n)) if rng.random() < 0.8 else rng.sample(idx, m))
        bc['out_indices'] = oi
        bc['out_features'] = [bc['stage_names'][i] for i in oi]
