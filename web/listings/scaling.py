# Why divide by √d: the experiment of section 5 in numpy, with the page's
# own random numbers.
import numpy as np


def uniforms(seed, n):
    """n numbers in [0, 1) from mulberry32, the small generator the page
    uses, so that both draw the same numbers."""
    i = np.arange(1, n + 1, dtype=np.uint64)
    a = ((seed + 0x6D2B79F5 * i) & 0xFFFFFFFF).astype(np.uint32)
    t = (a ^ (a >> 15)) * (a | 1)
    t = (t + (t ^ (t >> 7)) * (t | 61)) ^ t
    return (t ^ (t >> 14)) / 2**32


def normals(seed, n):
    """n standard normal numbers (Box-Muller, from pairs of uniforms)."""
    u = uniforms(seed, 2 * n)
    return np.sqrt(-2 * np.log(u[0::2])) * np.cos(2 * np.pi * u[1::2])


def softmax(s):
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


seed = 1
N = 1000          # queries
S = 16            # keys
widest = 512      # every vector is drawn this wide; width d uses its first d
widths = [4, 32, 256]
z = normals(seed, (N + S) * widest).astype(np.float32)
Q_all = z[:N * widest].reshape(N, widest)
K_all = z[N * widest:].reshape(S, widest)

print("    d  raw q·k  q·k/√d   (average largest weight)")
for d in widths:
    Q, K = Q_all[:, :d], K_all[:, :d]
    raw = Q @ K.T                       # [N, S] scores
    scaled = raw / np.sqrt(d)
    top_raw = softmax(raw).max(axis=1).mean()
    top_scaled = softmax(scaled).max(axis=1).mean()
    print(f"{d:5d}  {top_raw:7.3f}  {top_scaled:6.3f}")
print(f"an even spread over {S} keys gives {1 / S:.4f}; one-hot gives 1")
