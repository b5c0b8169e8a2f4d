# Causal multi-head self-attention as a PyTorch module, as it sits inside a
# transformer block: section 9's numpy version with learned projections, a
# batch of texts, and PyTorch's fused attention function.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, C, H):
        super().__init__()
        assert C % H == 0, "the width must split evenly into heads"
        self.H, self.d = H, C // H
        # W_Q, W_K, W_V and W_O: C x C each, whatever H is
        self.q = nn.Linear(C, C, bias=False)
        self.k = nn.Linear(C, C, bias=False)
        self.v = nn.Linear(C, C, bias=False)
        self.o = nn.Linear(C, C, bias=False)

    def forward(self, x):                            # x: [B, T, C]
        B, T, C = x.shape
        # project; cut C into H heads of d; move the heads next to the batch
        q = self.q(x).view(B, T, self.H, self.d).transpose(1, 2)  # [B, H, T, d]
        k = self.k(x).view(B, T, self.H, self.d).transpose(1, 2)
        v = self.v(x).view(B, T, self.H, self.d).transpose(1, 2)
        # scores / √d, causal mask, softmax and weighted sum, for every text
        # and every head at once
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        # the heads side by side again: [B, H, T, d] -> [B, T, C]
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.o(y)                             # W_O mixes the heads


if __name__ == "__main__":
    torch.manual_seed(0)
    attn = Attention(C=4, H=2)       # the sizes of section 9
    x = torch.randn(1, 4, 4)         # one text (B = 1) of T = 4 tokens, C = 4
    y = attn(x)
    print("x", tuple(x.shape))
    print("y", tuple(y.shape))       # the width is kept: y is shaped like x
