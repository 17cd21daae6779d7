#!/usr/bin/env python3
"""paddlefuzz: make fuzz.py's configs (in place) valid for a backbone_config:
out_indices/out_features an increasing subset of the stages, stage_names
regenerated, Swin heads dividing each stage width, no timm or pretrained
backbone.  usage: paddlefuzz.py FUZZDIR..."""
import json, sys, random, os
for d in sys.argv[1:]:
    p = os.path.join(d, 'config.json')
    c = json.load(open(p))
    rnd = random.Random(d)
    for k in ('use_timm_backbone', 'use_pretrained_backbone'):
        if k in c: c[k] = False
    if 'backbone' in c: c['backbone'] = None
    def fixbb(b):
        if not isinstance(b, dict): return
        n = None
        if isinstance(b.get('depths'), list): n = len(b['depths'])
        elif isinstance(b.get('hidden_sizes'), list): n = len(b['hidden_sizes'])
        if n is None: return
        if isinstance(b.get('hidden_sizes'), list) and isinstance(b.get('depths'), list):
            n = min(len(b['hidden_sizes']), len(b['depths']))
            b['hidden_sizes'] = b['hidden_sizes'][:n]; b['depths'] = b['depths'][:n]
        if isinstance(b.get('num_heads'), list): 
            while len(b['num_heads']) < n: b['num_heads'].append(b['num_heads'][-1])
            b['num_heads'] = b['num_heads'][:n]
        if 'embed_dim' in b and isinstance(b.get('num_heads'), list):
            e = b['embed_dim']
            b['num_heads'] = [rnd.choice([h for h in (1, 2, 3, 4, 6, 8) if (e * 2 ** i) % h == 0]) for i in range(n)]
        names = ['stem'] + ['stage%d' % i for i in range(1, n + 1)]
        k = rnd.randint(min(3, n), n)
        idx = sorted(rnd.sample(range(1, n + 1), k))
        b['stage_names'] = names; b['out_indices'] = idx; b['out_features'] = [names[i] for i in idx]
    for key in ('backbone_config',):
        fixbb(c.get(key))
    json.dump(c, open(p, 'w'), indent=1)
