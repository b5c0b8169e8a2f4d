# torch.nn.functional stand-in: scaled_dot_product_attention over the last two dimensions (queries, keys),
# every leading dimension (batch, heads) a batch, as PyTorch defines it.
import numpy as np

from .. import Tensor


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    q, k, v = query.data, key.data, value.data
    if q.shape[-1] != k.shape[-1] or k.shape[-2] != v.shape[-2] or q.shape[:-2] != k.shape[:-2]:
        raise RuntimeError(f"scaled_dot_product_attention: shapes {list(q.shape)}, {list(k.shape)}, {list(v.shape)} do not fit")
    L, S = q.shape[-2], k.shape[-2]
    s = q @ np.swapaxes(k, -1, -2) * (1 / np.sqrt(q.shape[-1]) if scale is None else scale)
    if is_causal:
        s = np.where(np.tril(np.ones((L, S), dtype=bool)), s, -np.inf)
    if attn_mask is not None:
        raise NotImplementedError("this stand-in has no attn_mask")
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    return Tensor(w @ v)
