#!/usr/bin/env python3
"""groundinghand: the hand-made (MM) Grounding DINO configs for the
switches fuzz.py leaves alone, each the class's reference `a` config with
one field changed: OUT/CLASSDIR/hand-1-K/config.json.
usage: groundinghand.py REFERENCE/layouts-more OUT"""
import json, os, sys
ref, out = sys.argv[1], sys.argv[2]
classes = {'grounding-dino_GroundingDinoForObjectDetection': 'grounding-dino/GroundingDinoForObjectDetection',
           'mm-grounding-dino_MMGroundingDinoForObjectDetection': 'mm-grounding-dino/MMGroundingDinoForObjectDetection'}
hands = [('decoder_bbox_embed_share', False), ('two_stage_bbox_embed_share', True), ('two_stage', False),
         ('embedding_init_target', False), ('num_feature_levels', 1), ('num_feature_levels', 2),
         ('num_feature_levels', 6), ('position_embedding_type', 'learned'), ('query_dim', 2),
         ('text_config.position_embedding_type', 'relative_key'),
         ('backbone_config.out_indices', [1, 4]), ('backbone_config.out_indices', [0, 2])]
for cls, src in classes.items():
    base = json.load(open(os.path.join(ref, src, 'a/config.json')))
    for k, (f, v) in enumerate(hands):
        if cls.startswith('mm') and 'bbox_embed_share' in f:  # MM has no such fields
            continue
        c = json.loads(json.dumps(base))
        if '.' in f:
            a, b = f.split('.')
            c[a][b] = v
            if b == 'out_indices':
                c[a]['out_features'] = [c[a]['stage_names'][i] for i in v]
        else:
            c[f] = v
        d = os.path.join(out, cls, 'hand-1-%d' % k)
        os.makedirs(d, exist_ok=True)
        json.dump(c, open(d + '/config.json', 'w'), indent=1)
