# Runs the chapter's PyTorch Attention module (web/listings/attention_module.py, or the file given) on the
# torch stand-in in torch_shim/, with the numpy multi-head listing's matrices (web/listings/multihead.py), and
# checks it against that listing: q, k, v as [B, H, T, d] (the heads a batch dimension, numpy's [H, T, d] with
# B = 1), the output [B, T, C] and every output number. Prints the shapes as JSON; exits non-zero on a mismatch.
# Usage: python3 check_attention_module.py [attention_module.py] (with numpy; no PyTorch needed).
import contextlib
import io
import json
import os
import runpy
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LISTINGS = os.path.join(HERE, "..", "..", "web", "listings")
sys.path.insert(0, os.path.join(HERE, "torch_shim"))

import numpy as np  # noqa: E402
import torch  # noqa: E402  (the stand-in)

module_file = sys.argv[1] if len(sys.argv) > 1 else os.path.join(LISTINGS, "attention_module.py")
with contextlib.redirect_stdout(io.StringIO()):
    mh = runpy.run_path(os.path.join(LISTINGS, "multihead.py"))
Attention = runpy.run_path(module_file, run_name="listing")["Attention"]

T, C = mh["X"].shape
H = mh["H"]
attn = Attention(C=C, H=H)
with torch.no_grad():
    for name in "qkvo":
        # nn.Linear computes x W^T and keeps its weight as [out, in]: the numpy matrix goes in transposed
        getattr(attn, name).weight.copy_(torch.tensor(mh[f"W_{name.upper()}"].T))

seen = {}


def tracer(frame, event, arg):
    if frame.f_code.co_name == "forward" and event == "return":
        seen.update({k: tuple(v.shape) for k, v in frame.f_locals.items() if isinstance(v, torch.Tensor)})
    return tracer if frame.f_code.co_name == "forward" else None


sys.settrace(tracer)
y = attn(torch.tensor(mh["X"])[None])
sys.settrace(None)

errors = []
want_heads = (1,) + mh["Q"].shape
for name in "qkv":
    if seen.get(name) != want_heads:
        errors.append(f"{name} has shape {seen.get(name)}; numpy's per-head {name.upper()} with a batch of one is {want_heads}")
want_out = (1,) + mh["Y"].shape
if tuple(y.shape) != want_out:
    errors.append(f"the output has shape {tuple(y.shape)}; numpy's Y with a batch of one is {want_out}")
elif not np.allclose(y.numpy()[0], mh["Y"], rtol=0, atol=1e-9):
    errors.append(f"the output differs from numpy's Y by up to {np.abs(y.numpy()[0] - mh['Y']).max():.3g}")
print(json.dumps({"q": seen.get("q"), "k": seen.get("k"), "v": seen.get("v"), "out": tuple(y.shape),
                  "numpy": {"Q": mh["Q"].shape, "Y": mh["Y"].shape}}))
if errors:
    print("\n".join(errors), file=sys.stderr)
    sys.exit(1)
