#!/usr/bin/env python3
"""maskfuzz: make fuzz.py's configs of the MaskFormer lineage (maskformer,
mask2former, oneformer) valid, in place, and draw what fuzz.py leaves alone: the Swin
backbone_config's out_indices/out_features an increasing subset of its
stages (the stem among them at times, one to all of them), stage_names
regenerated, heads dividing each stage's width; the pixel decoder's width a
multiple of 32 (its GroupNorms) divisible by the heads, the decoder's width
divisible by them too; at times another common_stride (2, 8, 16: two, no,
or all but one FPN adapters) or feature strides whose ratio is a power of
two of numbers that are not (7, 14, 28: Python's float log2 difference
truncated); OneFormer's text encoder width a multiple of 64 (its heads
are width/64), its projector 0-3 layers, its depth, positions and prompt
context (none at times), the task tokens' length, the query transformer's
depth; both: the FFN width, the queries, 1-5 labels; no timm or pretrained
backbone. MaskFormer: no stem among the outputs of its Swin, at times a
ResNet backbone instead (widths, depths, layer type, outputs drawn); the
DETR decoder's width divisible by its heads, at times the last feature
map's width (no input projection); the decoder's own backbone a timm
ResNet-50 without backbone_kwargs or a ResNet config (transformers 5.x
resolves the published configs' timm name with backbone_kwargs on the Hub).
usage: maskfuzz.py FUZZDIR..."""
import json, os, random, sys

FIELDS = {'mask2former': ('feature_size', 'feature_strides'), 'oneformer': ('conv_dim', 'strides')}


def maskformer(c, rnd):
    """The MaskFormer-specific repairs and draws (see the docstring)."""
    for k in ('use_timm_backbone', 'use_pretrained_backbone'):
        c[k] = False
    c['backbone'] = None
    b = c['backbone_config']
    if rnd.random() < 0.3:
        n = rnd.randint(1, 4)
        b = {'model_type': 'resnet', 'embedding_size': rnd.choice([16, 24, 32]),
             'hidden_sizes': [rnd.choice([16, 32, 48, 64]) for _ in range(n)],
             'depths': [rnd.randint(1, 2) for _ in range(n)],
             'layer_type': rnd.choice(['basic', 'bottleneck'])}
        lo = 0
    else:
        n = min(len(b['depths']), len(b['num_heads'])) or 1
        b['depths'] = (b['depths'] or [2])[:n]
        e = b['embed_dim']
        b['num_heads'] = [rnd.choice([h for h in (1, 2, 3, 4, 6, 8) if (e * 2 ** i) % h == 0]) for i in range(n)]
        b['num_layers'] = n
        lo = 1
    names = ['stem'] + ['stage%d' % i for i in range(1, n + 1)]
    idx = sorted(rnd.sample(range(lo, n + 1), rnd.randint(1, n + 1 - lo)))
    b['stage_names'] = names
    b['out_indices'] = idx
    b['out_features'] = [names[i] for i in idx]
    c['backbone_config'] = b
    c['fpn_feature_size'] = 32 * rnd.choice([1, 2, 3])
    d = c['decoder_config']
    heads = rnd.choice([1, 2, 4])
    d['decoder_attention_heads'] = heads
    d['encoder_attention_heads'] = heads
    d['d_model'] = heads * rnd.choice([8, 16, 24])
    if rnd.random() < 0.25:  # the last map's width: no input projection
        if b['model_type'] == 'resnet':
            w = b['embedding_size'] if idx[-1] == 0 else b['hidden_sizes'][idx[-1] - 1]
        else:
            w = b['embed_dim'] * 2 ** (idx[-1] - 1)
        d['d_model'] = w
        d['decoder_attention_heads'] = d['encoder_attention_heads'] = 1
    d['decoder_ffn_dim'] = rnd.choice([32, 48, 96])
    d['decoder_layers'] = rnd.randint(1, 4)
    d['num_queries'] = rnd.randint(3, 20)
    d.pop('backbone_kwargs', None)
    if rnd.random() < 0.5:
        d.update(backbone=None, use_timm_backbone=False, use_pretrained_backbone=False,
                 backbone_config={'model_type': 'resnet', 'out_features': ['stage4']})
    else:
        d.update(backbone='resnet50', use_timm_backbone=True, use_pretrained_backbone=False, backbone_config=None)


for d in sys.argv[1:]:
    p = os.path.join(d, 'config.json')
    c = json.load(open(p))
    rnd = random.Random(d)
    if c['model_type'] == 'maskformer':
        maskformer(c, rnd)
        json.dump(c, open(p, 'w'), indent=1)
        continue
    width, strides = FIELDS[c['model_type']]
    for k in ('use_timm_backbone', 'use_pretrained_backbone'):
        if k in c:
            c[k] = False
    c['backbone'] = None
    b = c['backbone_config']
    n = min(len(b['depths']), len(b['num_heads'])) or 1
    b['depths'] = (b['depths'] or [2])[:n]
    e = b['embed_dim']
    b['num_heads'] = [rnd.choice([h for h in (1, 2, 3, 4, 6, 8) if (e * 2 ** i) % h == 0]) for i in range(n)]
    b['num_layers'] = n
    names = ['stem'] + ['stage%d' % i for i in range(1, n + 1)]
    lo = 0 if rnd.random() < 0.25 else 1
    idx = sorted(rnd.sample(range(lo, n + 1), rnd.randint(1, n + 1 - lo)))
    b['stage_names'] = names
    b['out_indices'] = idx
    b['out_features'] = [names[i] for i in idx]
    heads = rnd.choice([1, 2, 4, 8])
    c['num_attention_heads'] = heads
    c[width] = 32 * rnd.choice([1, 2, 3, 4])
    if c[width] % heads:
        c[width] = 32 * heads
    c['hidden_dim'] = heads * rnd.choice([8, 12, 16, 24, 32])
    r = rnd.random()
    if r < 0.2:
        c['common_stride'] = rnd.choice([2, 8, 16])
    elif r < 0.3:
        c[strides] = rnd.choice([[7, 14, 28], [14, 28, 56, 112], [3, 7, 14]])
        c['common_stride'] = rnd.choice([7, 14])
    c['dim_feedforward'] = rnd.choice([32, 48, 96])
    c['num_queries'] = rnd.randint(3, 20)
    n = rnd.randint(1, 5)
    c['id2label'] = {str(i): 'L%d' % i for i in range(n)}
    c['label2id'] = {'L%d' % i: i for i in range(n)}
    if c['model_type'] == 'oneformer':
        c['text_encoder_width'] = 64 * rnd.choice([1, 2, 3])
        c['text_encoder_proj_layers'] = rnd.choice([0, 1, 2, 3])
        c['text_encoder_num_layers'] = rnd.randint(1, 3)
        c['text_encoder_context_length'] = rnd.randint(4, 20)
        c['text_encoder_n_ctx'] = rnd.choice([0, 1, 5])
        c['task_seq_len'] = rnd.randint(4, 20)
        c['query_dec_layers'] = rnd.randint(1, 3)
    json.dump(c, open(p, 'w'), indent=1)
