"""A float64 reference forward pass of a GGUF file's model, for tests/js/gguf-archs.test.mjs: reads the GGUF
(F32 tensors only) with its own parser and runs the architecture as llama.cpp defines it (llama, qwen2, qwen3,
gpt2), printing the logits of the ids given as JSON. Independent of lookback: numpy only (the norms, GELU and
attention from hf_reference.py).
Not a general GGUF reader (no quantised types) and not fast.

usage: python3 gguf_reference.py FILE.gguf '[ids]'  ->  {"logits": [[...], ...]} on stdout
"""
import json
import struct
import sys

import numpy as np

from hf_reference import attend, gelu_new, layer_norm, rms_norm  # the shared float64 pieces

SCALARS = {0: '<B', 1: '<b', 2: '<H', 3: '<h', 4: '<I', 5: '<i', 6: '<f', 7: '<?', 10: '<Q', 11: '<q', 12: '<d'}


def read_gguf(path):
    data = open(path, 'rb').read()
    at = 0

    def take(fmt):
        nonlocal at
        v = struct.unpack_from(fmt, data, at)[0]
        at += struct.calcsize(fmt)
        return v

    def string():
        nonlocal at
        n = take('<Q')
        s = data[at:at + n].decode('utf-8')
        at += n
        return s

    def value(t):
        if t == 8:
            return string()
        if t == 9:
            et, n = take('<I'), take('<Q')
            return [value(et) for _ in range(n)]
        return take(SCALARS[t])

    assert data[:4] == b'GGUF', 'not a GGUF file'
    at = 4
    version, n_tensors, n_kv = take('<I'), take('<Q'), take('<Q')
    assert version in (2, 3)
    meta = {}
    for _ in range(n_kv):
        key = string()
        meta[key] = value(take('<I'))
    infos = []
    for _ in range(n_tensors):
        name = string()
        dims = [take('<Q') for _ in range(take('<I'))]
        ggml_type, offset = take('<I'), take('<Q')
        assert ggml_type == 0, f'{name}: only F32 tensors here'
        infos.append((name, dims, offset))
    align = meta.get('general.alignment', 32)
    base = (at + align - 1) // align * align
    tensors = {}
    for name, dims, offset in infos:
        n = int(np.prod(dims))
        a = np.frombuffer(data, dtype='<f4', count=n, offset=base + offset).astype(np.float64)
        tensors[name] = a.reshape(list(reversed(dims)))  # ggml lists the innermost dimension first
    return meta, tensors


def silu(x):
    return x / (1 + np.exp(-x))


def rope(x, theta, neox):
    """x: [T, H, D] rotated by position; NORM (llama) rotates pairs (2i, 2i+1), NEOX (qwen) pairs (i, i + D/2)."""
    T, _, D = x.shape
    inv = theta ** (-np.arange(0, D, 2) / D)
    ang = np.arange(T)[:, None] * inv[None, :]
    cos, sin = np.cos(ang)[:, None, :], np.sin(ang)[:, None, :]
    if neox:
        a, b = x[..., :D // 2], x[..., D // 2:]
        return np.concatenate([a * cos - b * sin, b * cos + a * sin], -1)
    a, b = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = a * cos - b * sin
    out[..., 1::2] = b * cos + a * sin
    return out


def attention(q, k, v):
    """q: [T, H, D], k, v: [T, Hkv, D]; query head h reads key/value head h // (H / Hkv); causal."""
    group = q.shape[1] // k.shape[1]
    heads = lambda x: x.transpose(1, 0, 2)
    out = attend(heads(q), np.repeat(heads(k), group, axis=0), np.repeat(heads(v), group, axis=0))
    return heads(out)


def forward(meta, t, ids):
    arch = meta['general.architecture']
    a = arch + '.'
    L, H = meta[a + 'block_count'], meta[a + 'attention.head_count']
    Hkv = meta.get(a + 'attention.head_count_kv', H)
    C = meta[a + 'embedding_length']
    D = meta.get(a + 'attention.key_length', C // H)
    T = len(ids)
    lin = lambda x, name: x @ t[name + '.weight'].T + (t[name + '.bias'] if name + '.bias' in t else 0)
    x = t['token_embd.weight'][ids]
    if arch == 'gpt2':
        eps = meta[a + 'attention.layer_norm_epsilon']
        x = x + t['position_embd.weight'][:T]
        for l in range(L):
            p = f'blk.{l}.'
            h = layer_norm(x, t[p + 'attn_norm.weight'], t[p + 'attn_norm.bias'], eps)
            qkv = lin(h, p + 'attn_qkv')
            q, k, v = np.split(qkv, [H * D, H * D + Hkv * D], axis=-1)
            o = attention(q.reshape(T, H, D), k.reshape(T, Hkv, D), v.reshape(T, Hkv, D)).reshape(T, H * D)
            x = x + lin(o, p + 'attn_output')
            h = layer_norm(x, t[p + 'ffn_norm.weight'], t[p + 'ffn_norm.bias'], eps)
            x = x + lin(gelu_new(lin(h, p + 'ffn_up')), p + 'ffn_down')
        x = layer_norm(x, t['output_norm.weight'], t['output_norm.bias'], eps)
    else:
        eps = meta[a + 'attention.layer_norm_rms_epsilon']
        theta = meta.get(a + 'rope.freq_base', 10000.0)
        neox = arch in ('qwen2', 'qwen3')
        for l in range(L):
            p = f'blk.{l}.'
            h = rms_norm(x, t[p + 'attn_norm.weight'], eps)
            q = lin(h, p + 'attn_q').reshape(T, H, D)
            k = lin(h, p + 'attn_k').reshape(T, Hkv, D)
            v = lin(h, p + 'attn_v').reshape(T, Hkv, D)
            if p + 'attn_q_norm.weight' in t:
                q = rms_norm(q, t[p + 'attn_q_norm.weight'], eps)
                k = rms_norm(k, t[p + 'attn_k_norm.weight'], eps)
            q, k = rope(q, theta, neox), rope(k, theta, neox)
            x = x + lin(attention(q, k, v).reshape(T, H * D), p + 'attn_output')
            h = rms_norm(x, t[p + 'ffn_norm.weight'], eps)
            x = x + lin(silu(lin(h, p + 'ffn_gate')) * lin(h, p + 'ffn_up'), p + 'ffn_down')
        x = rms_norm(x, t['output_norm.weight'], eps)
    head = t['output.weight'] if 'output.weight' in t else t['token_embd.weight']
    return x @ head.T


if __name__ == '__main__':
    meta, tensors = read_gguf(sys.argv[1])
    logits = forward(meta, tensors, json.loads(sys.argv[2]))
    json.dump({'logits': logits.tolist()}, sys.stdout)
