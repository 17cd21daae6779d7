#!/usr/bin/env python3
"""cnn3fuzz: make fuzz.py's configs (in place) reach what fuzz.py leaves
alone, for the hierarchical backbones and towers (Hiera, EfficientFormer,
GroupViT, Pixio, Sapiens 2, C-RADIO, TVLT, VideoPrism).

  cnn3fuzz.py [--stages FIELD] [--stem] [--draw FIELD=V1;V2;...]... DIR...

--stages FIELD: the backbone's stage count is FIELD's value (an int, or a
  list's length); stage_names are regenerated for it and out_indices /
  out_features set to a sorted random non-empty subset of the stages
  (--stem: the stem, index 0, may be in it).
--draw FIELD=V1;V2: FIELD (dotted for a sub-config: vision_config.x) set to
  one of the JSON values, drawn per config ("-": left out).
--fn NAME: a per-family fix-up below (dimensions kept consistent).
Seeded by the directory's path: same directory, same config."""
import argparse, json, os, random

ap = argparse.ArgumentParser()
ap.add_argument('--stages')
ap.add_argument('--stem', action='store_true')
ap.add_argument('--draw', action='append', default=[])
ap.add_argument('--fn', action='append', default=[])
ap.add_argument('dirs', nargs='+')
a = ap.parse_args()


def get(c, path):
    for k in path.split('.')[:-1]:
        c = c.setdefault(k, {})
    return c, path.split('.')[-1]


FIXES = {}


def fix(f):
    FIXES[f.__name__] = f
    return f


# ── per-family fix-ups (--fn) ──


def divisors(n):
    return [k for k in range(1, n + 1) if n % k == 0]


@fix
def sapiens2(c, rnd):
    """key/value heads per layer: a list of divisors of the heads, or none
    (then the first/last full-attention layer counts and the middle
    layers' heads decide)."""
    h, n = c['num_attention_heads'], c['num_hidden_layers']
    c['num_key_value_attention_heads'] = rnd.choice(divisors(h))
    c['num_first_full_attention_layers'] = rnd.randint(0, n)
    c['num_last_full_attention_layers'] = rnd.randint(0, n)
    if rnd.random() < 0.5:
        c['num_key_value_heads_per_layer'] = [rnd.choice(divisors(h)) for _ in range(n)]
    else:
        c['num_key_value_heads_per_layer'] = None


@fix
def hiera(c, rnd):
    """1-4 stages of 1-3 layers, their heads, the widening, query pooling
    and mask units consistent (masked_unit_size divisible by
    query_stride^(stages-1), num_query_pool below the stages), other image,
    patch and stride sides."""
    n = rnd.randint(1, 4)
    c['depths'] = [rnd.randint(1, 3) for _ in range(n)]
    c['num_heads'] = [rnd.choice([1, 2]) for _ in range(n)]
    c['masked_unit_attention'] = [rnd.random() < 0.5 for _ in range(n)]
    c['embed_dim_multiplier'] = rnd.choice([2.0, 1.5, 1.0, 3.0])
    c['mlp_ratio'] = rnd.choice([4.0, 2.0, 3.0, 2.5])
    qs = rnd.choice([1, 2])
    c['query_stride'] = [qs, qs]
    c['masked_unit_size'] = [qs ** (n - 1) * rnd.choice([1, 2])] * 2
    c['num_query_pool'] = rnd.randint(0, n - 1)
    c['image_size'] = rnd.choice([[224, 224], [128, 96], [64, 64]])
    c['patch_stride'] = rnd.choice([[4, 4], [8, 4], [2, 2]])
    c['patch_size'] = rnd.choice([[7, 7], [3, 5], [4, 4]])
    c['patch_padding'] = rnd.choice([[3, 3], [1, 2], [0, 0]])


@fix
def efficientformer(c, rnd):
    """1-4 stages of 1-4 blocks, widths (equal neighbours sometimes: no
    downsampling between them unless asked), downsamples, attention
    blocks in the last stage (more than its depth sometimes), the
    attention's widths, ratio and bias table side, the MLP ratio."""
    n = rnd.randint(1, 4)
    c['depths'] = [rnd.randint(1, 4) for _ in range(n)]
    hs = [rnd.choice([16, 24, 32])]
    for _ in range(n - 1):
        hs.append(hs[-1] if rnd.random() < 0.3 else rnd.choice([16, 32, 48, 64]))
    c['hidden_sizes'] = hs
    c['downsamples'] = [rnd.random() < 0.6 for _ in range(n)]
    c['num_meta3d_blocks'] = rnd.randint(0, 3)
    c['dim'] = rnd.choice([32, 48, 64])
    c['key_dim'] = rnd.choice([8, 16, 32])
    c['num_attention_heads'] = rnd.randint(1, 4)
    c['attention_ratio'] = rnd.choice([4, 2, 1.5])
    c['resolution'] = rnd.randint(1, 7)
    c['mlp_expansion_ratio'] = rnd.choice([4, 2, 3])
    c['downsample_patch_size'] = rnd.choice([3, 1, 2])


@fix
def groupvit(c, rnd):
    """1-4 vision stages of 1-3 layers, group tokens (none in some stages,
    the projector then absent), output groups, the assignment MLPs'
    ratios (a pair or one number), image and patch sides."""
    v = c.setdefault('vision_config', {})
    n = rnd.randint(1, 4)
    v['depths'] = [rnd.randint(1, 3) for _ in range(n)]
    v['num_group_tokens'] = [rnd.choice([0, 4, 8, 16]) for _ in range(n)]
    v['num_output_groups'] = [rnd.choice([2, 4, 8]) for _ in range(n)]
    v['assign_mlp_ratio'] = rnd.choice([[0.5, 4], [1.0, 2], 0.5, [0.25, 3.0]])
    v['image_size'] = rnd.choice([224, 64, [64, 96]])
    v['patch_size'] = rnd.choice([16, 8, [8, 16]])


def main():
    for d in a.dirs:
        p = os.path.join(d, 'config.json')
        c = json.load(open(p))
        rnd = random.Random(d)
        for dr in a.draw:
            k, vs = dr.split('=', 1)
            o, key = get(c, k)
            v = json.loads(rnd.choice(vs.split(';')))
            if v == '-':
                o.pop(key, None)
            else:
                o[key] = v
        for fn in a.fn:
            FIXES[fn](c, rnd)
        if a.stages:
            o, key = get(c, a.stages)
            v = o.get(key)
            n = len(v) if isinstance(v, list) else int(v)
            names = ['stem'] + ['stage%d' % i for i in range(1, n + 1)]
            lo = 0 if a.stem else 1
            idx = sorted(rnd.sample(range(lo, n + 1), rnd.randint(1, min(3, n + 1 - lo))))
            o2 = o
            o2['stage_names'] = names
            o2['out_indices'] = idx
            o2['out_features'] = [names[i] for i in idx]
        json.dump(c, open(p, 'w'), indent=1)


main()
