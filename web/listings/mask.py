# The causal mask and the leak test in numpy, on the four words of
# section 8: "the cat sat down".
import numpy as np
np.set_printoptions(precision=3, suppress=True, floatmode="fixed")

X = np.array([[1.0, 0.0, 0.0],    # the: each word's embedding x, 3 numbers
              [0.0, 1.0, 0.0],    # cat
              [0.0, 1.0, 1.0],    # sat
              [0.0, 0.0, 1.0]])   # down
W_Q = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
W_K = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
W_V = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])


def attention(X, causal=True):
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V     # [T, d] each
    T, d = Q.shape
    S = Q @ K.T / np.sqrt(d)                # [T, T]: row = the token looking
    if causal:
        future = np.triu(np.ones((T, T), dtype=bool), k=1)
        S[future] = -np.inf                 # mask the scores, not the weights
    A = np.exp(S - S.max(axis=1, keepdims=True))   # exp(-inf) = 0
    A = A / A.sum(axis=1, keepdims=True)
    return A, A @ V


A, out = attention(X)
print("weights with the causal mask")
print(A)
print("outputs")
print(out)

# The leak test: change the last word. With a correct mask, no earlier
# output moves.
X_edit = X.copy()
X_edit[3] = [1.0, 1.0, 1.0]
for causal in (True, False):
    before, after = attention(X, causal)[1], attention(X_edit, causal)[1]
    change = np.abs(after - before).max(axis=1)
    name = "causal mask:" if causal else "no mask:    "
    print("largest change per word,", name, change)
