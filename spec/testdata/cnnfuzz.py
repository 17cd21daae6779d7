#!/usr/bin/env python3
"""cnnfuzz: random valid-ish configs of a staged CNN/hierarchical backbone.
Regenerates every per-stage list (int lists as long as the stage count) at a
new stage count, widths (multiples of 8; of heads*8 where a per-stage heads
list exists), depths 1..3, other small ints drawn from the list's own values;
stage_names/out_features/out_indices made consistent; booleans flipped 1/2;
--choice FIELD=a,b,c draws strings; --keep FIELD leaves one alone;
--set K=JSON overrides after drawing; --all-lists redraws the per-stage
lists of flags, fractions and strings too (CvT's cls_token, qkv_bias,
mlp_ratio, qkv_projection_method), each entry from the list's own values
(flags: either).
usage: cnnfuzz.py -n N --seed S --out DIR CONFIG [...]"""
import argparse, json, random, os, copy

ap = argparse.ArgumentParser()
ap.add_argument('-n', type=int, default=6)
ap.add_argument('--seed', type=int, default=0)
ap.add_argument('--out', required=True)
ap.add_argument('--choice', action='append', default=[])
ap.add_argument('--keep', action='append', default=[])
ap.add_argument('--set', action='append', default=[])
ap.add_argument('--stages', default='')  # e.g. 1,4 : range of stage counts
ap.add_argument('--fixed-stages', action='store_true')
ap.add_argument('--all-lists', action='store_true')
ap.add_argument('config')
a = ap.parse_args()
base = json.load(open(a.config))
SKIP = {'stage_names', 'out_features', 'out_indices', 'architectures', 'id2label', 'label2id'}
RUNTIME = {'use_cache', 'output_attentions', 'output_hidden_states', 'return_dict', 'torchscript', 'is_encoder_decoder',
           'tie_word_embeddings', 'is_decoder', 'add_cross_attention', 'tie_encoder_decoder', 'pruned_heads', 'chunk_size_feed_forward',
           'use_return_dict', 'problem_type', 'tf_legacy_loss', 'use_bfloat16', 'return_dict_in_generate'}
def jv(x):
    try: return json.loads(x)
    except Exception: return x
choices = {c.split('=')[0]: [jv(x) for x in c.split('=', 1)[1].split(',')] for c in a.choice}

def stage_count(cfg):
    lens = {}
    for k, v in cfg.items():
        if k in SKIP or k in a.keep: continue
        if isinstance(v, list) and v and all(isinstance(x, (int, list)) and not isinstance(x, bool) for x in v):
            lens[len(v)] = lens.get(len(v), 0) + 1
    if 'depths' in cfg and isinstance(cfg['depths'], list):
        return len(cfg['depths'])
    return max(lens, key=lambda n: (lens[n], n)) if lens else 0

def draw(rng, cfg):
    c = copy.deepcopy(cfg)
    n0 = stage_count(cfg)
    lo, hi = 1, max(n0, 4)
    if a.stages:
        lo, hi = map(int, a.stages.split(','))
    n = n0 if a.fixed_stages or n0 == 0 or rng.random() < 0.3 else rng.randint(lo, hi)
    heads = None
    for k in list(c):
        if 'head' in k and isinstance(c[k], list) and len(c[k]) == n0 and k not in a.keep:
            heads = [rng.choice([1, 2, 4]) for _ in range(n)]
            c[k] = heads
    for k, v in list(c.items()):
        if k in SKIP or k in a.keep: continue
        if isinstance(v, bool):
            if k not in RUNTIME and rng.random() < 0.5: c[k] = not v
            continue
        if isinstance(v, list) and len(v) == n0 and n0 > 0 and v and all(isinstance(x, int) and not isinstance(x, bool) for x in v):
            if heads is not None and c[k] is heads: continue
            if 'depth' in k or 'layers' in k or 'blocks' in k or k.startswith('num_'):
                c[k] = [rng.randint(1, 3) for _ in range(n)]
            elif max(v) >= 16:
                w = []
                prev = 8
                for i in range(n):
                    m = (heads[i] if heads else 1) * 8
                    x = m * rng.randint(1, 6)
                    w.append(x)
                c[k] = w
            else:
                c[k] = [rng.choice(v) for _ in range(n)]
            continue
        if a.all_lists and isinstance(v, list) and len(v) == n0 and n0 > 0 and all(isinstance(x, (bool, float, str)) for x in v):
            c[k] = [rng.choice([False, True]) if isinstance(x, bool) else rng.choice(v) for x in v[:1] * n]
            continue
        if isinstance(v, list) and len(v) == n0 and n0 > 0 and v and all(isinstance(x, list) for x in v):
            c[k] = [copy.deepcopy(rng.choice(v)) for _ in range(n)]
            continue
        if isinstance(v, int) and not isinstance(v, bool) and v >= 16 and ('size' in k or 'dim' in k or 'channels' in k) and 'image' not in k and 'patch' not in k and rng.random() < 0.6:
            c[k] = 8 * rng.randint(1, 8)
    for k, v in cfg.items():
        if isinstance(v, int) and not isinstance(v, bool) and v == n0 and k.startswith('num_') and any(w in k for w in ('stage', 'block', 'layers')) and k not in a.keep:
            c[k] = n
    for k in choices:
        if rng.random() < 0.7: c[k] = rng.choice(choices[k])
    if n > 0 and ('stage_names' in c or 'out_features' in c or 'out_indices' in c):
        stem = cfg.get('stage_names', ['stem'])[0] == 'stem'
        names = (['stem'] if stem else []) + [f'stage{i}' for i in range(1, n + 1)]
        if 'stage_names' in c: c['stage_names'] = names
        idx = sorted(rng.sample(range(0, len(names)), rng.randint(1, min(3, len(names)))))
        if rng.random() < 0.2: idx = [len(names) - 1]
        c['out_indices'] = idx
        c['out_features'] = [names[i] for i in idx]
    if rng.random() < 0.5:
        k = rng.randint(2, 7)
        c['id2label'] = {str(i): f'L{i}' for i in range(k)}
        c['label2id'] = {f'L{i}': i for i in range(k)}
    c['dtype'] = rng.choice(['bfloat16', 'float16', 'float32'])
    for s in a.set:
        kk, vv = s.split('=', 1)
        c[kk] = json.loads(vv)
    return c

for k in range(a.n):
    rng = random.Random(a.seed * 1000 + k)
    c = draw(rng, base)
    d = os.path.join(a.out, f'fuzz-{a.seed}-{k}')
    os.makedirs(d, exist_ok=True)
    json.dump(c, open(os.path.join(d, 'config.json'), 'w'), indent=1)
print(f'{a.n} configs in {a.out}')
