#!/usr/bin/python3
"""PyTorch checkpoint fixtures (python3-torch 1.13), written by torch.save itself.

Run from the repository root:  /usr/bin/python3 tests/golden/make_torch_golden.py
Writes into tests/golden/data/:
  torch_tensors_{zip,legacy}.bin   a state dict of odd tensors: F32, F16, BF16, F64, a
                                   transposed (non-contiguous) view, a slice at an offset of a
                                   shared storage, an int64 buffer, and _metadata as
                                   state_dict() leaves it; zip = the format of PyTorch >= 1.6,
                                   legacy = _use_new_zipfile_serialization=False (the 2020
                                   OPUS-MT uploads)
  torch_tensors_expected.npy       a stream of the float tensors as float32, by sorted name
  model_torch_{zip,legacy,f16}/    config.json and pytorch_model.bin of the golden model
                                   model_post_relu_interleaved, with HF Marian's aliases
                                   (encoder/decoder embed_tokens and lm_head share
                                   model.shared's storage); f16 is that model in half precision
"""
import collections
import json
import os
import shutil
import struct

import numpy as np
import torch

from make_golden import OUT, save_stream


def read_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = collections.OrderedDict()
    for name, info in header.items():
        if name == "__metadata__":
            continue
        a, b = info["data_offsets"]
        out[name] = torch.from_numpy(np.frombuffer(data[a:b], dtype="<f4").reshape(info["shape"]).copy())
    return out


def tensors_fixture():
    g = torch.Generator().manual_seed(7)
    base = torch.randn(6, 4, generator=g)
    sd = collections.OrderedDict()
    sd["a.f32"] = torch.randn(3, 5, generator=g)
    sd["b.f16"] = torch.randn(4, 3, generator=g).half()
    sd["c.bf16"] = torch.randn(7, generator=g).bfloat16()
    sd["d.f64"] = torch.randn(2, 2, 2, generator=g).double()
    sd["e.transposed"] = base.t()  # [4,6], strides (1,4)
    sd["f.slice"] = base[2:5]      # offset 8 into base's storage
    sd["g.scalar"] = torch.tensor(3.5)
    sd["h.position_ids"] = torch.arange(5).unsqueeze(0)  # int64, not a float tensor
    sd._metadata = collections.OrderedDict([("", {"version": 1}), ("a", {"version": 1})])
    for fmt, zipped in (("zip", True), ("legacy", False)):
        torch.save(sd, os.path.join(OUT, f"torch_tensors_{fmt}.bin"), _use_new_zipfile_serialization=zipped)
    floats = [sd[k].float().contiguous().numpy() for k in sorted(sd) if sd[k].is_floating_point()]
    save_stream(os.path.join(OUT, "torch_tensors_expected.npy"), floats)


def model_fixture():
    src = os.path.join(OUT, "model_post_relu_interleaved")
    w = read_safetensors(os.path.join(src, "model.safetensors"))
    shared = w["model.shared.weight"]
    sd = collections.OrderedDict()
    sd["model.shared.weight"] = shared
    sd["model.encoder.embed_tokens.weight"] = shared  # HF's aliases of one storage
    sd["model.decoder.embed_tokens.weight"] = shared
    for k, v in w.items():
        if k != "model.shared.weight":
            sd[k] = v
    sd["lm_head.weight"] = shared
    for name, zipped, half in (("zip", True, False), ("legacy", False, False), ("f16", True, True)):
        d = os.path.join(OUT, f"model_torch_{name}")
        os.makedirs(d, exist_ok=True)
        shutil.copy(os.path.join(src, "config.json"), d)
        out = sd
        if half:
            h = shared.half()
            out = collections.OrderedDict((k, h if v is shared else v.half()) for k, v in sd.items())
        torch.save(out, os.path.join(d, "pytorch_model.bin"), _use_new_zipfile_serialization=zipped)


if __name__ == "__main__":
    tensors_fixture()
    model_fixture()
