#!/usr/bin/env python3
"""jukeboxfuzz: random Jukebox configs (fuzz.py does not enter
prior_config_list), for fuzz-layouts-nc1.tar.gz.

  jukeboxfuzz.py SEED N OUT [BASE]

Writes OUT/fuzz-SEED-K/config.json for K < N from BASE (default the
reference layouts-more/jukebox/JukeboxModel/a/config.json): each prior's
width, depth, attention and MLP multipliers, attention pattern (the
large pattern deep enough for its cross-attention layers), encoder-
decoder or a separate lyric encoder, vocabularies, contexts, metadata
dims, conditioner stacks; the VQ-VAE's levels, multipliers (null too),
depths, widths, strides and steps (0 too); nb_priors 1-3,
metadata_conditioning. merged_decoder stays true (false ties two names
transformers refuses to save); full_dense_attention is left out
(transformers 4.57 raises KeyError 'dense_attention' on it)."""
import json, random, os, sys, copy
seed = int(sys.argv[1]); n = int(sys.argv[2]); out = sys.argv[3]
src = sys.argv[4] if len(sys.argv) > 4 else '/work/shared/reference/layouts-more/jukebox/JukeboxModel/a/config.json'
base = json.load(open(src))
pats = ["enc_dec_with_lyrics", "raw_column_previous_row_attention", "large_separated_enc_dec_w_lyrics"]
for k in range(n):
    r = random.Random(seed * 1000 + k)
    c = copy.deepcopy(base)
    c['dtype'] = r.choice(['bfloat16', 'float16', 'float32'])
    c['metadata_conditioning'] = r.random() < 0.6
    c['timing_dims'] = r.choice([64, 32, 16])
    v = c['vqvae_config']
    lv = r.randint(1, 3)
    v['levels'] = lv
    v['multipliers'] = None if r.random() < 0.3 else [r.randint(1, 2) for _ in range(lv)]
    v['res_conv_depth'] = r.randint(1, 4)
    v['res_conv_width'] = r.choice([32, 16, 24])
    v['res_convolution_multiplier'] = r.choice([1, 2])
    v['res_downs_t'] = [r.choice([0, 1, 2, 3]) if r.random() < 0.2 else r.randint(1, 3) for _ in range(lv)]
    v['res_strides_t'] = [r.randint(2, 4) for _ in range(lv)]
    v['embed_dim'] = r.choice([64, 48, 40])
    v['nb_discrete_codes'] = r.choice([2048, 100])
    v['conv_input_shape'] = r.choice([1, 1, 2])
    np_ = r.randint(1, 3)
    c['nb_priors'] = np_
    for p in c['prior_config_list']:
        h = r.choice([64, 96, 128, 160])
        p['hidden_size'] = h
        p['attention_pattern'] = r.choice(pats)
        p['num_layers'] = r.randint(19, 24) if p['attention_pattern'].startswith('large') and r.random() < 0.7 else r.randint(1, 6)
        p['attention_multiplier'] = r.choice([0.25, 0.5, 0.3, 1.0])
        p['mlp_multiplier'] = r.choice([1.0, 0.5, 2.0, 1.5])
        p['n_heads'] = r.choice([1, 2])
        p['is_encoder_decoder'] = r.random() < 0.5
        p["merged_decoder"] = True
        p['lyric_vocab_size'] = r.choice([80, 50])
        p['music_vocab_size'] = r.choice([2048, 512, 100])
        p['n_ctx'] = r.choice([6144, 256, 100])
        p['nb_relevant_lyric_tokens'] = r.choice([384, 0, 64])
        p['metadata_dims'] = r.choice([[604, 7898], [10, 20]])
        p['res_conv_depth'] = r.randint(1, 3)
        p['res_conv_width'] = r.choice([128, 32, 48])
        p['res_convolution_multiplier'] = r.choice([1, 2])
        p['res_downs_t'] = [r.randint(0, 3) for _ in range(3)]
        p['res_strides_t'] = [r.randint(2, 4) for _ in range(3)]
        if not p['is_encoder_decoder'] and p['nb_relevant_lyric_tokens']:
            p['encoder_config'] = {'hidden_size': r.choice([32, 64, 96]), 'num_layers': r.randint(1, 4),
                                   'attention_multiplier': r.choice([0.25, 0.5]), 'mlp_multiplier': r.choice([1.0, 2.0]),
                                   'attention_pattern': r.choice(pats[:2]), 'n_heads': 1}
        else:
            p['encoder_config'] = None
    d = os.path.join(out, 'fuzz-%d-%d' % (seed, k))
    os.makedirs(d, exist_ok=True)
    json.dump(c, open(os.path.join(d, 'config.json'), 'w'), indent=2)
