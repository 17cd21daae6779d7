#!/usr/bin/env python3
"""ppocrfuzz: random configs of the PaddlePaddle OCR models:
the backbone_config redrawn by its model_type (PP-LCNet and PP-LCNet v3: five
stages of block_configs, scale, divisor, stem, reduction, branches; PP-LCNet v4:
four stages, stem widths and type, strides 1, 2 or [2, 1], learnable affine
blocks; HGNet-v2: two to four stages of every per-stage list; UVDoc's ResNet
head, stages and bridge; out_indices an increasing subset), a backbone config
given alone redrawn the same way, then the head's own fields the config has
(hidden_size and heads, depth, mlp_ratio, conv_kernel_size, qkv_bias,
head_out_channels, hidden_act; the detectors' neck widths and kernels; the
table heads' widths, CSP kernel and blocks; SLANeXt's SAM-ViT tower: widths,
layers, windows, global layers, positions, hidden_size or mlp_dim sometimes
left to the class default; UVDoc's connector, point convolutions and
activation), and the dtype.
usage: ppocrfuzz.py CONFIG OUT SEED N"""
import json, random, os, sys


def lcnet_v3(r, bb):
    bc = []; prev = r.choice([8, 16, 24])
    for s in range(5):
        st = []
        for j in range(r.randint(1, 3)):
            o = r.choice([8, 16, 24, 32, 48, 64])
            st.append([r.choice([3, 5]), prev, o, r.choice([1, 2]), r.random() < 0.4]); prev = o
        bc.append(st)
    bb['block_configs'] = bc; bb['depths'] = [len(s) for s in bc]
    bb['scale'] = r.choice([0.5, 0.75, 1.0, 1.5]); bb['divisor'] = r.choice([8, 16])
    bb['stem_channels'] = r.choice([8, 16]); bb['reduction'] = r.choice([2, 4])
    if bb.get('model_type') == 'pp_lcnet_v3': bb['conv_symmetric_num'] = r.randint(1, 5)
    return 5


def lcnet_v4_blocks(r, bb, ns):
    """PP-LCNet v4's stem widths and type, ns stages of block_configs (in ==
    out half the time, strides 1, 2 or [2, 1]), reduction, learnable affine
    blocks; lcnetv4fuzz.py draws them too."""
    sc = [3, r.choice([8, 16, 24]), r.choice([16, 32])]
    bb['stem_channels'] = sc
    bc = []; prev = sc[2]
    for s in range(ns):
        st = []
        for j in range(r.randint(1, 3)):
            o = prev if r.random() < 0.5 else r.choice([8, 16, 24, 32, 48])
            st.append([r.choice([3, 5]), prev, o, r.choice([1, 1, 2, [2, 1]]), r.random() < 0.4]); prev = o
        bc.append(st)
    bb['block_configs'] = bc; bb['depths'] = [len(s) for s in bc]
    bb['reduction'] = r.choice([2, 4, 8]); bb['stem_type'] = r.choice(['large', 'small'])
    bb['use_learnable_affine_block'] = r.random() < 0.5

def lcnet_v4(r, bb):
    lcnet_v4_blocks(r, bb, 4)
    bb['stage_out_channels'] = [s[-1][2] for s in bb['block_configs']]
    return 4


def uvdoc(r, bb):
    w = [3, r.choice([8, 16]), r.choice([8, 16, 32])]
    if r.random() < 0.3: w = w[:2]
    bb['resnet_head'] = [[w[i], w[i + 1]] for i in range(len(w) - 1)]
    rc = []; prev = w[-1]
    for s in range(r.randint(1, 3)):
        st = []
        for j in range(r.randint(1, 3)):
            o = prev if j else r.choice([prev, 16, 24, 32])
            st.append([prev, o, r.choice([1, 2, 3]), j == 0 and r.random() < 0.6]); prev = o
        rc.append(st)
    bb['resnet_configs'] = rc
    bb['stage_configs'] = [[[prev, r.choice([1, 2, 3, 5])] for j in range(r.randint(1, 3))] for s in range(r.randint(1, 4))]
    bb['depths'] = [len(s) for s in bb['stage_configs']]
    bb['kernel_size'] = r.choice([3, 5])
    return len(bb['stage_configs'])


def hgnet_v2(r, bb):
    ns = r.randint(2, 4)
    sc = [3, r.choice([8, 16]), r.choice([16, 24])]
    bb['stem_channels'] = sc
    ins, mids, outs = [], [], []; prev = sc[2]
    for s in range(ns):
        ins.append(prev if r.random() < 0.8 else r.choice([16, 32]))
        mids.append(r.choice([8, 16, 24])); outs.append(r.choice([16, 32, 48])); prev = outs[-1]
    bb['stage_in_channels'] = ins; bb['stage_mid_channels'] = mids; bb['stage_out_channels'] = outs
    bb['stage_num_blocks'] = [r.randint(1, 2) for _ in range(ns)]
    bb['stage_numb_of_layers'] = [r.randint(1, 3) for _ in range(ns)]
    bb['stage_downsample'] = [r.random() < 0.7 for _ in range(ns)]
    bb['stage_light_block'] = [r.random() < 0.5 for _ in range(ns)]
    bb['stage_kernel_size'] = [r.choice([3, 5]) for _ in range(ns)]
    bb['stage_downsample_strides'] = [r.choice([[2, 1], [1, 2], 2]) for _ in range(ns)]
    bb['depths'] = bb['stage_num_blocks']; bb['hidden_sizes'] = outs
    bb['embedding_size'] = sc[2]; bb['use_learnable_affine_block'] = r.random() < 0.5
    for k in ('return_idx', 'lr_mult_list'): bb.pop(k, None)
    return ns


BACKBONES = {'hgnet_v2': hgnet_v2, 'uvdoc_backbone': uvdoc, 'pp_lcnet': lcnet_v3, 'pp_lcnet_v3': lcnet_v3, 'pp_lcnet_v4': lcnet_v4}


def main():
    base, out, seed, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    b = json.load(open(base))
    if b.get('model_type') in BACKBONES:  # a backbone alone
        b = {'backbone_config': b, 'architectures': b['architectures'], 'alone': True}
    for k in range(n):
        r = random.Random(seed * 1000 + k)
        c = json.loads(json.dumps(b))
        bb = c.get('backbone_config')
        if bb and bb.get('model_type') in BACKBONES:
            ns = BACKBONES[bb['model_type']](r, bb)
            idx = sorted(r.sample(range(1, ns + 1), r.randint(1, ns)))
            names = ['stem'] + ['stage%d' % i for i in range(1, ns + 1)]
            bb['stage_names'] = names; bb['out_indices'] = idx; bb['out_features'] = [names[i] for i in idx]
            bb['dtype'] = c.get('dtype', 'bfloat16')
        if 'bridge_connector' in c:
            c['bridge_connector'] = [r.choice([bb['stage_configs'][0][0][0], 8]), r.choice([8, 16, 32])]
            c['out_point_positions2D'] = [[c['bridge_connector'][1], r.choice([4, 8, 32])], [r.choice([4, 8, 32]), 2]]
            c['hidden_act'] = r.choice(['prelu', 'relu', 'prelu', 'xielu', 'silu']); c['kernel_size'] = r.choice([3, 5, 7])
            c['padding_mode'] = r.choice(['reflect', 'zeros', 'replicate'])
        if 'num_attention_heads' in c:
            h = r.choice([2, 4]); c['num_attention_heads'] = h; c['hidden_size'] = h * r.choice([8, 16, 24])
        elif 'hidden_size' in c:
            c['hidden_size'] = r.choice([24, 40, 64, 100])
        if 'depth' in c: c['depth'] = r.randint(0, 3)
        if 'mlp_ratio' in c: c['mlp_ratio'] = r.choice([1.0, 2.0, 1.5, 4.0])
        if 'head_out_channels' in c: c['head_out_channels'] = r.choice([37, 100, 500])
        if 'qkv_bias' in c: c['qkv_bias'] = r.random() < 0.5
        if 'conv_kernel_size' in c: c['conv_kernel_size'] = r.choice([[1, 3], [3, 3], [1, 1], [3, 5], [1, 7], [1, 3, 3], [3, 1, 1, 3]])
        if 'hidden_act' in c and 'bridge_connector' not in c: c['hidden_act'] = r.choice(['silu', 'relu', 'gelu'])
        if 'neck_out_channels' in c: c['neck_out_channels'] = r.choice([16, 32, 48, 96])
        if 'reduction' in c: c['reduction'] = r.choice([2, 4, 8])
        if 'layer_list_out_channels' in c:
            c['layer_list_out_channels'] = [r.choice([4, 8, 12]), r.choice([8, 18]), r.choice([16, 42]), r.choice([32, 64, 360])]
        if 'kernel_list' in c: c['kernel_list'] = [r.choice([1, 3]), 2, 2]
        if 'dilated_kernel_size' in c: c['dilated_kernel_size'] = r.choice([3, 5, 7])
        if 'post_conv_out_channels' in c: c['post_conv_out_channels'] = r.choice([8, 24, 32, 50])
        if 'post_conv_in_channels' in c:
            c['post_conv_in_channels'] = c['vision_config']['output_channels'] = r.choice([16, 32, 48])
        if 'out_channels' in c: c['out_channels'] = r.choice([10, 30, 50])
        if 'csp_kernel_size' in c: c['csp_kernel_size'] = r.choice([3, 5, 7])
        if 'csp_num_blocks' in c: c['csp_num_blocks'] = r.randint(0, 3)
        vc = c.get('vision_config')
        if vc is not None and 'window_size' in vc:
            h = r.choice([2, 4]); vc['num_attention_heads'] = h; vc['hidden_size'] = h * r.choice([8, 16])
            vc['num_hidden_layers'] = r.randint(1, 4); vc['mlp_dim'] = r.choice([32, 64, 100])
            vc['global_attn_indexes'] = sorted(r.sample(range(vc['num_hidden_layers']), r.randint(0, vc['num_hidden_layers'])))
            vc['image_size'] = r.choice([64, 128, 512]); vc['patch_size'] = r.choice([8, 16])
            vc['window_size'] = r.choice([0, 4, 7, 14]); vc['use_abs_pos'] = r.random() < 0.5
            vc['use_rel_pos'] = r.random() < 0.5; vc['qkv_bias'] = r.random() < 0.5
            for f in ('hidden_size', 'mlp_dim'):
                if r.random() < 0.2: vc.pop(f); vc.pop('num_attention_heads', None)
        c['dtype'] = r.choice(['bfloat16', 'float16', 'float32'])
        if bb: bb['dtype'] = c['dtype']
        if c.pop('alone', False): c = dict(bb, architectures=c['architectures'])
        d = os.path.join(out, 'fuzz-%d-%d' % (seed, k)); os.makedirs(d, exist_ok=True)
        json.dump(c, open(os.path.join(d, 'config.json'), 'w'), indent=1)


if __name__ == '__main__':
    main()
