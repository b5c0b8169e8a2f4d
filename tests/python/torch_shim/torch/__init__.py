# A stand-in for the few parts of PyTorch that the chapter's Attention listing (web/listings/attention_module.py)
# uses, in numpy (float64), so that CI without PyTorch can run the listing and check its shapes and numbers.
# Not PyTorch: no autograd, no devices, no dtypes beyond float64; it fails loudly where PyTorch would
# (view of a non-contiguous tensor, shapes that do not match), never more leniently.
import contextlib

import numpy as np

_rng = np.random.default_rng(0)


class Size(tuple):
    def __repr__(self):
        return f"torch.Size({list(self)})"


class Tensor:
    def __init__(self, data, contiguous=True):
        self.data = np.asarray(data, dtype=np.float64)
        self._contiguous = contiguous

    @property
    def shape(self):
        return Size(self.data.shape)

    def size(self, dim=None):
        return self.shape if dim is None else self.data.shape[dim]

    def dim(self):
        return self.data.ndim

    def view(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        if not self._contiguous:
            raise RuntimeError("view size is not compatible with input tensor's size and stride "
                               "(at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
        if -1 not in shape and int(np.prod(shape)) != self.data.size:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {self.data.size}")
        return Tensor(self.data.reshape(shape))

    def reshape(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return Tensor(np.ascontiguousarray(self.data).reshape(shape))

    def transpose(self, a, b):
        axes = list(range(self.data.ndim))
        axes[a], axes[b] = axes[b], axes[a]
        moved = [n for i, n in enumerate(self.data.shape) if n != 1 and axes[i] != i]
        # swapping dimensions leaves the memory order intact only when at most one of them is longer than 1
        return Tensor(self.data.transpose(axes), contiguous=self._contiguous and len(moved) <= 1)

    def contiguous(self):
        return Tensor(np.ascontiguousarray(self.data))

    def is_contiguous(self):
        return self._contiguous

    def __matmul__(self, other):
        return Tensor(self.data @ _data(other))

    def __getitem__(self, index):
        return Tensor(self.data[index])

    def copy_(self, src):
        src = _data(src)
        if src.shape != self.data.shape:
            raise RuntimeError(f"copy_: shapes {list(src.shape)} and {list(self.data.shape)} differ")
        self.data[...] = src
        return self

    def detach(self):
        return self

    def numpy(self):
        return self.data

    @property
    def T(self):
        return Tensor(self.data.T, contiguous=self.data.ndim < 2)


def _data(x):
    return x.data if isinstance(x, Tensor) else np.asarray(x, dtype=np.float64)


def tensor(data):
    return Tensor(np.array(_data(data)))


def from_numpy(a):
    return Tensor(a)


def manual_seed(seed):
    global _rng
    _rng = np.random.default_rng(seed)


def randn(*shape):
    return Tensor(_rng.standard_normal(shape))


@contextlib.contextmanager
def no_grad():
    yield


from . import nn  # noqa: E402  (nn uses Tensor)
