#!/usr/bin/env python3
"""groundingfix: make fuzzed (MM) Grounding DINO configs buildable, in
place: the Swin backbone's stage_names, per-stage heads dividing each
stage's width, out_indices a sorted subset (seeded) with out_features
matching, no timm / pretrained / named backbone; d_model a multiple of
32 (its GroupNorms) with encoder and decoder heads in {2, 4, 8}, the
encoder FFN width a multiple of the encoder heads (the fusion's
bi-attention: encoder_ffn_dim/2 over encoder_attention_heads/2);
two_stage_bbox_embed_share only with decoder_bbox_embed_share.
usage: groundingfix.py SEED DIR..."""
from fixconf import each_config, offline_backbone
for rng, c in each_config():
    offline_backbone(c, 'backbone_kwargs')
    bc = c['backbone_config']
    n = len(bc.get('depths', [2, 2, 6, 2]))
    e = bc.get('embed_dim', 96)
    bc['num_heads'] = [rng.choice([h for h in (1, 2, 3, 4, 6, 8) if (e << i) % h == 0]) for i in range(n)]
    for f in ('hidden_size', 'num_layers'):
        bc.pop(f, None)
    bc['stage_names'] = ['stem'] + ['stage%d' % i for i in range(1, n + 1)]
    m = rng.randint(1, min(3, n))
    oi = sorted(rng.sample(range(1, n + 1), m) if rng.random() < 0.8 else rng.sample(range(0, n + 1), m))
    bc['out_indices'] = oi
    bc['out_features'] = [bc['stage_names'][i] for i in oi]
    c['d_model'] = max(32, round(c.get('d_model', 256) / 32) * 32)
    xh = c['encoder_attention_heads'] = rng.choice([2, 4, 8])
    c['decoder_attention_heads'] = rng.choice([2, 4, 8])
    c['encoder_ffn_dim'] = max(xh, round(c.get('encoder_ffn_dim', 2048) / xh) * xh)
    if not c.get('decoder_bbox_embed_share', True):
        c['two_stage_bbox_embed_share'] = False
