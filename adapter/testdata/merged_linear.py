"""Old PEFT's (0.1, 0.2) MergedLinear, as its forward computes the delta.

  merged_linear.py ADAPTER_MODEL.BIN OUT_FEATURES R ALPHA ENABLE MODULE OUT.f32 [MODULE OUT.f32...]

ENABLE is enable_lora as 0/1 digits ("101"). Writes each module's delta
[out, in] as raw little-endian float32: the forward of lora_A
(nn.Linear(in, k*r)), lora_B (nn.Conv1d(k*r, out/n*k, 1, groups=2)) and
zero_pad, applied to the identity, times alpha/r: torch's own modules,
not the Go code's padding of lora_B.
"""
import sys

import torch
import torch.nn as nn

path, out_features, r, alpha, enable = sys.argv[1:6]
out_features, r, alpha = int(out_features), int(r), float(alpha)
enable = [c == "1" for c in enable]
sd = torch.load(path, map_location="cpu")


def delta(module):
    a = sd["base_model.model." + module + ".lora_A.weight"].float()
    b = sd["base_model.model." + module + ".lora_B.weight"].float()
    in_features = a.shape[1]
    k = sum(enable)
    lora_A = nn.Linear(in_features, r * k, bias=False)
    lora_B = nn.Conv1d(r * k, out_features // len(enable) * k, kernel_size=1, groups=2, bias=False)
    with torch.no_grad():
        lora_A.weight.copy_(a)
        lora_B.weight.copy_(b)
        lora_ind = torch.zeros(out_features, dtype=torch.bool).view(len(enable), -1)
        lora_ind[enable, :] = True
        lora_ind = lora_ind.view(-1)
        x = torch.eye(in_features).unsqueeze(0)  # [1, in, in]: one row per input unit
        after_A = lora_A(x)
        after_B = lora_B(after_A.transpose(-2, -1)).transpose(-2, -1)
        result = x.new_zeros((*after_B.shape[:-1], out_features))
        result = result.view(-1, out_features)
        result[:, lora_ind] = after_B.reshape(-1, out_features // len(enable) * k)
        return (result * (alpha / r)).T.contiguous()  # [out, in]


pairs = sys.argv[6:]
for module, out in zip(pairs[0::2], pairs[1::2]):
    open(out, "wb").write(delta(module).numpy().astype("<f4").tobytes())
