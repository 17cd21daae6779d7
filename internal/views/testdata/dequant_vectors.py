# Reference values for views' dequantization tests, computed with torch as
# each library computes them (see the Go test for the citations).
import torch, struct, random
random.seed(7); torch.manual_seed(7)
def f32bits(t): return [struct.unpack('<I', struct.pack('<f', float(x)))[0] for x in t.float().flatten().tolist()]
def golist(xs, fmt='%d'): return ', '.join(fmt % x for x in xs)
out = []
# --- bitsandbytes NF4, double quant, blocksize 32, shape [6, 20], bf16 ---
NF4 = [-1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0, 0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224, 0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0]
n = 120; bs = 32
packed = torch.tensor([random.randrange(256) for _ in range(n//2)], dtype=torch.uint8)
absq = torch.tensor([random.randrange(256) for _ in range(4)], dtype=torch.uint8)
nqm = torch.linspace(-1, 1, 256, dtype=torch.float32)
nabs = torch.tensor([0.0371], dtype=torch.float32)
offset = torch.tensor(0.0125, dtype=torch.float32)
absmax = nqm[absq.long()] * nabs[torch.arange(4)//256] + offset          # dequantize_blockwise, += offset
codes = torch.empty(n, dtype=torch.long); codes[0::2] = (packed >> 4).long(); codes[1::2] = (packed & 0xF).long()
table = torch.tensor(NF4, dtype=torch.float32)
vals = (table[codes] * absmax[torch.arange(n)//bs]).to(torch.bfloat16)  # kDequantizeBlockwise: float product, stored as T
out.append('nf4Packed = []byte{%s}' % golist(packed.tolist()))
out.append('nf4Absmax = []byte{%s}' % golist(absq.tolist()))
out.append('nf4Want = []uint32{%s}' % golist(f32bits(vals), '0x%08x'))
# --- bitsandbytes FP4, blocksize 16, shape [4, 12], float16 ---
fp4 = torch.tensor([0, 0.0625, 8.0, 12.0, 4.0, 6.0, 2.0, 3.0, -0, -0.0625, -8.0, -12.0, -4.0, -6.0, -2.0, -3.0], dtype=torch.float32)
fp4 = fp4 / fp4.abs().max()                                             # get_4bit_type("fp4")
n2 = 48; bs2 = 16
packed2 = torch.tensor([random.randrange(256) for _ in range(n2//2)], dtype=torch.uint8)
absmax2 = torch.tensor([0.75, -0.0, 3.5e-3, 12.25], dtype=torch.float32)
codes2 = torch.empty(n2, dtype=torch.long); codes2[0::2] = (packed2 >> 4).long(); codes2[1::2] = (packed2 & 0xF).long()
vals2 = (fp4[codes2] * absmax2[torch.arange(n2)//bs2]).to(torch.float16)
out.append('fp4Map = []uint32{%s}' % golist(f32bits(fp4), '0x%08x'))
out.append('fp4Packed = []byte{%s}' % golist(packed2.tolist()))
out.append('fp4Want = []uint32{%s}' % golist(f32bits(vals2), '0x%08x'))
# --- bitsandbytes int8: int8_vectorwise_dequant ---
cb = torch.tensor([random.randrange(-127, 128) for _ in range(35)], dtype=torch.int8).reshape(5, 7)
scb = torch.tensor([1.7, 0.0213, 55.5, 3.0e-4, 0.999], dtype=torch.float32)
vals3 = cb * scb.view(-1, 1) * 7.874015718698502e-3
out.append('int8CB = []int8{%s}' % golist(cb.flatten().tolist()))
out.append('int8Want = []uint32{%s}' % golist(f32bits(vals3), '0x%08x'))
# --- ModelOpt INT4_AWQ: pack_int4_in_uint8, weight [6, 64], group 32, bf16 ---
q = torch.tensor([random.randrange(-8, 8) for _ in range(6*64)], dtype=torch.int8).reshape(6, 64)
reshaped = q.T.reshape(64, 3, 2)
packed4 = ((reshaped[..., 0] & 0x0F) | ((reshaped[..., 1] & 0x0F) << 4)).T.contiguous().view(torch.uint8)
scale4 = (torch.rand(6, 2) * 0.02 + 0.001).to(torch.bfloat16)
pqs = (torch.rand(64) * 2 + 0.25).to(torch.bfloat16)
w4 = (q.to(torch.bfloat16) * scale4.repeat_interleave(32, dim=1)) * pqs
out.append('awqPacked = []byte{%s}' % golist(packed4.flatten().tolist()))
out.append('awqScale = []uint32{%s}' % golist(f32bits(scale4), '0x%08x'))
out.append('awqPQS = []uint32{%s}' % golist(f32bits(pqs), '0x%08x'))
out.append('awqWant = []uint32{%s}' % golist(f32bits(w4), '0x%08x'))
# --- GPT-OSS MXFP4 experts: _convert_moe_packed_tensors, blocks [2, 3, 2, 16] ---
FP4 = [+0.0, +0.5, +1.0, +1.5, +2.0, +3.0, +4.0, +6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0]
blocks = torch.tensor([random.randrange(256) for _ in range(2*3*2*16)], dtype=torch.uint8).reshape(2, 3, 2, 16)
scales = torch.tensor([random.choice([0, 1, 100, 120, 125, 127, 128, 130, 140]) for _ in range(12)], dtype=torch.uint8).reshape(2, 3, 2)
lut = torch.tensor(FP4, dtype=torch.bfloat16)
b2 = blocks.reshape(12, 16); e2 = scales.to(torch.int32).reshape(12, 1) - 127
sub = torch.empty(12, 32, dtype=torch.bfloat16)
sub[:, 0::2] = lut[(b2 & 0x0F).long()]
sub[:, 1::2] = lut[(b2 >> 4).long()]
torch.ldexp(sub, e2, out=sub)
res = sub.reshape(2, 3, 2, 32).view(2, 3, 64).transpose(1, 2).contiguous()
out.append('mxBlocks = []byte{%s}' % golist(blocks.flatten().tolist()))
out.append('mxScales = []byte{%s}' % golist(scales.flatten().tolist()))
out.append('mxWant = []uint32{%s}' % golist(f32bits(res), '0x%08x'))
print('\n'.join(out))
print('nf4NQM = []uint32{%s}' % golist(f32bits(nqm), '0x%08x'))
print('nf4NAbs, nf4Offset = uint32(0x%08x), uint32(0x%08x)' % (f32bits(nabs)[0], f32bits(offset.reshape(1))[0]))
print('fp4Absmax = []uint32{%s}' % golist(f32bits(absmax2), '0x%08x'))
print('int8SCB = []uint32{%s}' % golist(f32bits(scb), '0x%08x'))
