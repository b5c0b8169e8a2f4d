# Multi-head attention in numpy: cut the width C into H heads of d numbers;
# each head attends on its own; then the heads are laid side by side again
# and W_O mixes them.
import numpy as np
np.set_printoptions(precision=3, suppress=True, floatmode="fixed")

X = np.array([[1.0, 0.0, 1.0, 0.0],     # the: 4 tokens, C = 4 numbers each
              [0.0, 1.0, 0.0, 1.0],     # cat
              [1.0, 1.0, 0.0, 0.0],     # sat
              [0.0, 0.0, 1.0, 1.0]])    # down
W_Q = np.array([[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 1.0, 0.0],
                [1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, -1.0]])
W_K = np.array([[0.0, 1.0, 1.0, 0.0], [1.0, 0.0, 0.0, 1.0],
                [1.0, 0.0, 1.0, 0.0], [0.0, -1.0, 0.0, 1.0]])
W_V = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0],
                [0.0, 0.0, 1.0, 0.0], [0.5, 0.5, 0.5, 0.5]])
W_O = np.array([[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0],
                [0.0, 0.0, 1.0, 0.0], [1.0, 0.0, 0.0, -1.0]])
H = 2                                   # heads
T, C = X.shape
d = C // H                              # numbers per head


def split(M):
    """[T, C] -> [H, T, d]: head h gets columns h*d to h*d + d - 1."""
    return M.reshape(T, H, d).transpose(1, 0, 2)


Q, K, V = split(X @ W_Q), split(X @ W_K), split(X @ W_V)
S = Q @ K.transpose(0, 2, 1) / np.sqrt(d)      # [H, T, T]: a head each
future = np.triu(np.ones((T, T), dtype=bool), k=1)
S[:, future] = -np.inf                         # the same mask for every head
A = np.exp(S - S.max(axis=2, keepdims=True))
A = A / A.sum(axis=2, keepdims=True)           # a softmax per head and row
heads = A @ V                                  # [H, T, d]
concat = heads.transpose(1, 0, 2).reshape(T, C)   # side by side: [T, C]
Y = concat @ W_O                               # mix the heads

for h in range(H):
    print(f"head {h + 1}: weights {A[h].shape}")
    print(A[h])
print(f"output {Y.shape}")
print(Y)
