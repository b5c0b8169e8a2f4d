# torch.nn stand-in: Module (calls forward, collects nothing) and Linear (y = x W^T, weight [out, in]).
import numpy as np

from .. import Tensor
from . import functional  # noqa: F401  (torch.nn.functional is importable once torch.nn is)


class Module:
    def __init__(self):
        self._init_done = True

    def __call__(self, *args, **kwargs):
        if not getattr(self, "_init_done", False):
            raise AttributeError("cannot call a module whose __init__ did not call super().__init__()")
        return self.forward(*args, **kwargs)


class Linear(Module):
    def __init__(self, in_features, out_features, bias=True):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        bound = 1 / np.sqrt(in_features)
        from .. import _rng as rng
        self.weight = Tensor(rng.uniform(-bound, bound, (out_features, in_features)))
        self.bias = Tensor(rng.uniform(-bound, bound, out_features)) if bias else None

    def forward(self, x):
        if x.shape[-1] != self.in_features:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied (last dimension {x.shape[-1]}, "
                               f"Linear expects {self.in_features})")
        y = x.data @ self.weight.data.T
        if self.bias is not None:
            y = y + self.bias.data
        return Tensor(y)
