"""Float64 logits of a Hugging Face transformers folder, written from each architecture's definition in numpy.

Usage: hf_reference.py FOLDER ID [ID ...]  -> prints {"logits": [[...V] * T]} as JSON.
Reads config.json and model.safetensors (or model.safetensors.index.json and its shards; F32, F16, BF16) of
GPT2LMHeadModel, LlamaForCausalLM, Qwen2ForCausalLM or Qwen3ForCausalLM. Not lookback's code: the independent
reference the tests compare lookback's float32 logits with (tests/js/hf-reference.test.mjs).
"""
import json
import os
import sys

import numpy as np


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    n = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + n])
    body = data[8 + n:]
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        raw = body[t["data_offsets"][0]:t["data_offsets"][1]]
        if t["dtype"] == "F32":
            a = np.frombuffer(raw, dtype="<f4")
        elif t["dtype"] == "F16":
            a = np.frombuffer(raw, dtype="<f2")
        elif t["dtype"] == "BF16":
            a = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            raise SystemExit(f"dtype {t['dtype']} not read")
        out[name] = a.astype(np.float64).reshape(t["shape"])
    return out


def read_weights(folder):
    index = os.path.join(folder, "model.safetensors.index.json")
    if not os.path.exists(index):
        return read_safetensors(os.path.join(folder, "model.safetensors"))
    weights = {}
    with open(index) as f:
        weight_map = json.load(f)["weight_map"]
    for shard in sorted(set(weight_map.values())):
        weights.update(read_safetensors(os.path.join(folder, shard)))
    return weights


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def attend(q, k, v):
    # q: [H, T, D], k, v: [H, T, D] (key/value heads already repeated); causal softmax(q k^T / sqrt(D)) v
    T, D = q.shape[1], q.shape[2]
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(D)
    scores = np.where(np.tril(np.ones((T, T), dtype=bool)), scores, -np.inf)
    return softmax(scores) @ v


def layer_norm(x, w, b, eps):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def rms_norm(x, w, eps):
    return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + eps) * w


def gelu_new(x):
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))


def gpt2(cfg, w, ids):
    w = {k[len("transformer."):] if k.startswith("transformer.") else k: v for k, v in w.items()}
    C, H = cfg["n_embd"], cfg["n_head"]
    D, T, eps = C // H, len(ids), cfg.get("layer_norm_epsilon", 1e-5)
    x = w["wte.weight"][ids] + w["wpe.weight"][:T]
    for l in range(cfg["n_layer"]):
        p = f"h.{l}."
        a = layer_norm(x, w[p + "ln_1.weight"], w[p + "ln_1.bias"], eps)
        qkv = a @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"]  # Conv1D: weight [in, out]
        q, k, v = (qkv[:, i * C:(i + 1) * C].reshape(T, H, D).transpose(1, 0, 2) for i in range(3))
        o = attend(q, k, v).transpose(1, 0, 2).reshape(T, C)
        x = x + o @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
        m = layer_norm(x, w[p + "ln_2.weight"], w[p + "ln_2.bias"], eps)
        f = gelu_new(m @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"])
        x = x + f @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]
    x = layer_norm(x, w["ln_f.weight"], w["ln_f.bias"], eps)
    return x @ w["wte.weight"].T  # tied head


def rotate_half(x):
    half = x.shape[-1] // 2
    return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)


def llama3_scaled(scaling, inv_freq):
    # transformers' _compute_llama3_parameters
    if not scaling:
        return inv_freq
    factor, low, high = scaling["factor"], scaling["low_freq_factor"], scaling["high_freq_factor"]
    old = scaling["original_max_position_embeddings"]
    wavelen = 2 * np.pi / inv_freq
    scaled = np.where(wavelen > old / low, inv_freq / factor, inv_freq)
    smooth = (old / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = ~(wavelen < old / high) & ~(wavelen > old / low)
    return np.where(medium, smoothed, scaled)


def llama_family(cfg, w, ids, qk_norm):
    C, H = cfg["hidden_size"], cfg["num_attention_heads"]
    KV = cfg.get("num_key_value_heads", H)
    D = cfg.get("head_dim") or C // H
    T, eps, theta = len(ids), cfg.get("rms_norm_eps", 1e-6), cfg.get("rope_theta", 10000.0)
    inv_freq = llama3_scaled(cfg.get("rope_scaling"), 1.0 / theta ** (np.arange(0, D, 2) / D))
    angles = np.arange(T)[:, None] * inv_freq[None, :]
    cos, sin = np.cos(np.concatenate([angles, angles], -1)), np.sin(np.concatenate([angles, angles], -1))

    def proj(name, a):
        return a @ w[name + ".weight"].T + (w[name + ".bias"] if name + ".bias" in w else 0.0)

    x = w["model.embed_tokens.weight"][ids]
    for l in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{l}."
        a = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = proj(p + "self_attn.q_proj", a).reshape(T, H, D).transpose(1, 0, 2)
        k = proj(p + "self_attn.k_proj", a).reshape(T, KV, D).transpose(1, 0, 2)
        v = proj(p + "self_attn.v_proj", a).reshape(T, KV, D).transpose(1, 0, 2)
        if qk_norm:  # Qwen3: RMSNorm over each head's D before the rotary positions
            q = rms_norm(q, w[p + "self_attn.q_norm.weight"], eps)
            k = rms_norm(k, w[p + "self_attn.k_norm.weight"], eps)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        group = H // KV
        o = attend(q, np.repeat(k, group, axis=0), np.repeat(v, group, axis=0)).transpose(1, 0, 2).reshape(T, H * D)
        x = x + proj(p + "self_attn.o_proj", o)
        m = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        g = proj(p + "mlp.gate_proj", m)
        x = x + proj(p + "mlp.down_proj", g / (1.0 + np.exp(-g)) * proj(p + "mlp.up_proj", m))
    x = rms_norm(x, w["model.norm.weight"], eps)
    head = w["model.embed_tokens.weight"] if cfg.get("tie_word_embeddings", False) else w["lm_head.weight"]
    return x @ head.T


def main():
    folder, ids = sys.argv[1], [int(a) for a in sys.argv[2:]]
    with open(os.path.join(folder, "config.json")) as f:
        cfg = json.load(f)
    w = read_weights(folder)
    arch = cfg["architectures"][0]
    if arch == "GPT2LMHeadModel":
        logits = gpt2(cfg, w, ids)
    elif arch in ("LlamaForCausalLM", "Qwen2ForCausalLM", "Qwen3ForCausalLM"):
        logits = llama_family(cfg, w, ids, qk_norm=arch == "Qwen3ForCausalLM")
    else:
        raise SystemExit(f"architecture {arch} not written here")
    print(json.dumps({"logits": logits.tolist()}))


if __name__ == "__main__":
    main()
