"""fixconf: what the fixers of fuzzed configs share (detrfix.py,
groundingfix.py): every DIR's config.json with its own seeded
random.Random, written back in place, and a backbone made buildable
offline (no timm, pretrained or named checkpoint).
A fixer's usage: FIXER SEED DIR..."""
import json
import random
import sys


def each_config():
    """Yields (rng, config) for each DIR of sys.argv[2:], seeded by
    sys.argv[1] and the DIR's position, and writes the config back once
    the caller has changed it."""
    seed = int(sys.argv[1])
    for k, d in enumerate(sys.argv[2:]):
        rng = random.Random(seed * 1000 + k)
        p = d + '/config.json'
        c = json.load(open(p))
        yield rng, c
        json.dump(c, open(p, 'w'), indent=1)


def offline_backbone(c, *drop):
    """No timm, pretrained or named backbone; drop the other fields named."""
    c['use_timm_backbone'] = False
    c['use_pretrained_backbone'] = False
    for f in ('backbone',) + drop:
        c.pop(f, None)
