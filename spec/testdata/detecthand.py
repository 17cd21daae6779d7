#!/usr/bin/env python3
"""detecthand: the hand-made configs of fuzz-layouts-detect.tar.gz (hand-1-K), for the
switches fuzz.py leaves alone, from a class's reference a/config.json.
usage: detecthand.py dfine|ppv3|ppv2|deimv2 SRC OUTDIR PREFIX"""
import json, sys, os, copy

fam, src, out, pre = sys.argv[1:5]
base = json.load(open(src))

if fam == 'dfine':
    cases = [
        {"eval_idx": 0, "layer_scale": 2, "decoder_layers": 3},
        {"eval_idx": 1, "layer_scale": 1.5, "decoder_layers": 4, "decoder_n_points": [2, 3, 4]},
        {"eval_idx": -2, "decoder_layers": 3, "d_model": 192, "decoder_in_channels": [256, 256, 128], "num_feature_levels": 4},
        {"num_denoising": 0, "learn_initial_query": True, "depth_mult": 0.5, "hidden_expansion": 0.5, "lqe_layers": 1},
        {"freeze_backbone_batch_norms": False, "depth_mult": 0.34, "lqe_layers": 3, "lqe_hidden_dim": 40, "top_prob_values": 2, "max_num_bins": 16,
         "decoder_in_channels": [192, 192], "num_feature_levels": 3, "d_model": 256},
        {"encode_proj_layers": [0, 2], "encoder_layers": 2, "hidden_expansion": 0.75, "decoder_n_points": [4], "num_feature_levels": 1,
         "decoder_in_channels": [256]},
    ]
    for k, ch in enumerate(cases):
        c = copy.deepcopy(base)
        c.update(ch)
        if k == 5 and isinstance(c.get("backbone_config"), dict):
            c["backbone_config"]["out_indices"] = [4]; c["backbone_config"]["out_features"] = ["stage4"]
        if k == 4 and isinstance(c.get("backbone_config"), dict):
            c["backbone_config"]["out_indices"] = [0, 3]; c["backbone_config"]["out_features"] = ["stem", "stage3"]
            c["backbone_config"]["use_learnable_affine_block"] = True
        if k == 2 and isinstance(c.get("backbone_config"), dict):
            c["backbone_config"]["out_indices"] = [1, 2, 4]; c["backbone_config"]["out_features"] = ["stage1", "stage2", "stage4"]
        d = f"{out}/{pre}-{k}"
        os.makedirs(d, exist_ok=True)
        json.dump(c, open(d + "/config.json", "w"), indent=1)
if fam == 'ppv3':
    cases = [
        {"tie_word_embeddings": False, "feat_strides": [4, 8, 16, 32], "encoder_in_channels": [256, 512, 1024, 2048]},
        {"num_denoising": 0, "learn_initial_query": True, "mask_feature_channels": [48, 80], "x4_feat_dim": 96, "num_prototypes": 16,
         "feat_strides": [32, 8, 16], "d_model": 192, "decoder_in_channels": [128, 192, 256], "num_feature_levels": 5},
        {"freeze_backbone_batch_norms": False, "feat_strides": [12, 8, 64], "global_pointer_head_size": 40, "hidden_expansion": 0.5,
         "encode_proj_layers": [0, 1], "encoder_layers": 2, "tie_word_embeddings": False},
        {"feat_strides": [16], "encoder_in_channels": [512], "decoder_in_channels": [256], "num_feature_levels": 2, "decoder_layers": 2},
    ]
    for k, ch in enumerate(cases):
        c = copy.deepcopy(base)
        c.update(ch)
        bc = c.get("backbone_config")
        if isinstance(bc, dict) and k == 1:
            bc["out_indices"] = [0, 2, 4]; bc["out_features"] = ["stem", "stage2", "stage4"]; bc["use_learnable_affine_block"] = True
        if isinstance(bc, dict) and k == 3:
            bc["out_indices"] = [2, 3]; bc["out_features"] = ["stage2", "stage3"]
        d = f"{out}/{pre}-{k}"
        os.makedirs(d, exist_ok=True)
        json.dump(c, open(d + "/config.json", "w"), indent=1)
if fam == 'ppv2':
    cases = [
        ({"num_denoising": 0, "learn_initial_query": True}, {"has_relative_attention_bias": True, "has_spatial_attention_bias": False, "rel_pos_bins": 16}),
        ({"decoder_in_channels": [128, 256, 192], "num_feature_levels": 4, "freeze_backbone_batch_norms": False},
         {"has_relative_attention_bias": True, "relation_bias_embed_dim": 8, "coordinate_size": 32, "shape_size": 24, "num_classes": 7,
          "max_2d_position_embeddings": 256, "type_vocab_size": 2, "global_pointer_head_size": 16}),
        ({"hidden_expansion": 0.5, "encode_proj_layers": [1, 2], "encoder_layers": 2}, {"has_spatial_attention_bias": False, "num_hidden_layers": 1}),
    ]
    for k, (ch, rch) in enumerate(cases):
        c = copy.deepcopy(base)
        c.update(ch)
        c.setdefault("reading_order_config", {}).update(rch)
        d = f"{out}/{pre}-{k}"
        os.makedirs(d, exist_ok=True)
        json.dump(c, open(d + "/config.json", "w"), indent=1)
if fam == 'deimv2':
    cases = [
        {"encoder_type": "lite", "encoder_in_channels": [512, 1024], "decoder_in_channels": [256, 256], "num_feature_levels": 2,
         "bbox": [3, 4]},
        {"encoder_type": "lite", "encoder_has_trailing_conv": False, "use_gateway": False, "share_bbox_head": True, "depth_mult": 0.67,
         "encoder_in_channels": [128, 96], "decoder_in_channels": [256, 128], "num_feature_levels": 3, "d_model": 192, "bbox": [2, 3]},
        {"encoder_has_trailing_conv": False, "share_bbox_head": True, "eval_idx": 1, "decoder_layers": 3, "layer_scale": 2},
        {"use_gateway": False, "eval_idx": 0, "decoder_layers": 3, "layer_scale": 1.5, "decoder_n_points": [2, 4, 3], "num_denoising": 0,
         "learn_initial_query": True, "hidden_expansion": 0.5},
        {"d_model": 128, "decoder_in_channels": [128, 256, 192], "num_feature_levels": 4, "decoder_n_points": 3, "lqe_layers": 1,
         "freeze_backbone_batch_norms": False, "encode_proj_layers": [0, 2], "encoder_layers": 2},
    ]
    for k, ch in enumerate(cases):
        c = copy.deepcopy(base)
        bb = ch.pop("bbox", None)
        c.update(ch)
        bc = c.get("backbone_config")
        if bb and isinstance(bc, dict):
            bc["out_indices"] = bb; bc["out_features"] = ["stage%d" % i for i in bb]
        d = f"{out}/{pre}-{k}"
        os.makedirs(d, exist_ok=True)
        json.dump(c, open(d + "/config.json", "w"), indent=1)
