#!/usr/bin/python3
"""Golden fixtures for tfm's tests, computed with PyTorch (Debian python3-torch 1.13).

Run from the repository root:  /usr/bin/python3 tests/golden/make_golden.py
Writes tests/golden/data/. The test suite reads these files and never needs PyTorch.

Each attention case <name> has
  attn_<name>_in.npy           the input records tfm-attend reads (X, or Q K V)
  attn_<name>.safetensors      q_proj/k_proj/v_proj/out_proj .weight [D,D] and .bias [D]
  attn_<name>_out.npy          the expected output record, then the weights [H,Tq,Tk]
  attn_<name>.args             the tfm-attend flags of the case (one line)
"""
import json
import os
import struct

import numpy as np
import torch
import torch.nn.functional as F

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def save_stream(path, arrays):
    with open(path, "wb") as f:
        for a in arrays:
            np.save(f, np.ascontiguousarray(a))


def save_safetensors(path, tensors):
    header, blobs, at = {}, [], 0
    for name, t in tensors.items():
        b = np.ascontiguousarray(t, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [at, at + len(b)]}
        blobs.append(b)
        at += len(b)
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def params(d, gen, shared_kv=False):
    p = {}
    for name in ("q_proj", "k_proj", "v_proj", "out_proj"):
        p[name + ".weight"] = torch.randn(d, d, generator=gen, dtype=torch.float64) / d ** 0.5
        p[name + ".bias"] = torch.randn(d, generator=gen, dtype=torch.float64) * 0.1
    if shared_kv:
        p["v_proj.weight"] = p["k_proj.weight"]
        p["v_proj.bias"] = p["k_proj.bias"]
    return p


def torch_mha(q, k, v, p, heads, key_lengths=None, causal=False):
    """q [B,Tq,D], k/v [B,Tk,D] -> out [B,Tq,D], weights [B,H,Tq,Tk], in float64."""
    b, tq, d = q.shape
    tk = k.shape[1]
    kpm = None
    if key_lengths is not None:
        kpm = torch.arange(tk)[None, :] >= torch.tensor(key_lengths)[:, None]
    mask = None
    if causal:
        # query i sees keys j <= i + (Tk - Tq), as tfm does
        mask = torch.arange(tk)[None, :] > (torch.arange(tq)[:, None] + (tk - tq))
    out, w = F.multi_head_attention_forward(
        q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1), d, heads,
        in_proj_weight=None, in_proj_bias=torch.cat([p["q_proj.bias"], p["k_proj.bias"], p["v_proj.bias"]]),
        bias_k=None, bias_v=None, add_zero_attn=False, dropout_p=0.0,
        out_proj_weight=p["out_proj.weight"], out_proj_bias=p["out_proj.bias"], training=False,
        key_padding_mask=kpm, need_weights=True, attn_mask=mask, use_separate_proj_weight=True,
        q_proj_weight=p["q_proj.weight"], k_proj_weight=p["k_proj.weight"], v_proj_weight=p["v_proj.weight"],
        average_attn_weights=False)
    return out.transpose(0, 1), w


def attention_case(name, gen, d, heads, tq, tk=None, batch=None, mode="self", key_lengths=None,
                   causal=False, shared_kv=False):
    tk = tq if tk is None else tk
    bsz = batch or 1
    p = params(d, gen, shared_kv)
    x = torch.randn(bsz, tq, d, generator=gen, dtype=torch.float64)
    if mode == "self":
        q = k = v = x
        inputs = [x]
    elif mode == "cross":
        mem = torch.randn(bsz, tk, d, generator=gen, dtype=torch.float64)
        q, k, v = x, mem, mem
        inputs = [x, mem]
    else:
        k = torch.randn(bsz, tk, d, generator=gen, dtype=torch.float64)
        v = torch.randn(bsz, tk, d, generator=gen, dtype=torch.float64)
        q = x
        inputs = [q, k, v]
    out, w = torch_mha(q, k, v, p, heads, key_lengths, causal)
    squeeze = batch is None
    conv = lambda t: (t[0] if squeeze else t).numpy().astype(np.float32)
    save_stream(os.path.join(OUT, f"attn_{name}_in.npy"), [conv(t) for t in inputs])
    save_stream(os.path.join(OUT, f"attn_{name}_out.npy"), [conv(out), conv(w)])
    tensors = {k_: v_.numpy() for k_, v_ in p.items()}
    if shared_kv:
        del tensors["v_proj.weight"], tensors["v_proj.bias"]
    save_safetensors(os.path.join(OUT, f"attn_{name}.safetensors"), tensors)
    args = [f"--heads {heads}", "--weights-out"]
    if mode != "self":
        args.append("--" + mode)
    if key_lengths is not None:
        args.append("--key-lengths " + ",".join(str(n) for n in key_lengths))
    if causal:
        args.append("--causal")
    if shared_kv:
        args.append("--shared-kv")
    with open(os.path.join(OUT, f"attn_{name}.args"), "w") as f:
        f.write(" ".join(args) + "\n")


def plain_attention_case(name, gen, d, heads, t, scaled, additive_dim=None):
    """No projections: tfm-attend --proj identity, scaled/unscaled dot product or additive."""
    x = torch.randn(t, d, generator=gen, dtype=torch.float64)
    k = d // heads
    xh = x.view(t, heads, k).transpose(0, 1)  # [H,T,K]
    args = [f"--heads {heads}", "--weights-out"]
    tensors = {}
    if additive_dim:
        wq = torch.randn(additive_dim, k, generator=gen, dtype=torch.float64) / k ** 0.5
        wk = torch.randn(additive_dim, k, generator=gen, dtype=torch.float64) / k ** 0.5
        w = torch.randn(additive_dim, generator=gen, dtype=torch.float64)
        s = torch.tanh((xh @ wq.T)[:, :, None, :] + (xh @ wk.T)[:, None, :, :]) @ w  # [H,T,T]
        tensors = {"additive.q.weight": wq.numpy(), "additive.k.weight": wk.numpy(), "additive.w": w.numpy()}
        args += ["--additive", "--proj params"]
    else:
        s = xh @ xh.transpose(1, 2)
        if scaled:
            s = s / k ** 0.5
        else:
            args.append("--no-scale")
    w_ = torch.softmax(s, dim=-1)
    out = (w_ @ xh).transpose(0, 1).reshape(t, d)
    save_stream(os.path.join(OUT, f"attn_{name}_in.npy"), [x.numpy().astype(np.float32)])
    save_stream(os.path.join(OUT, f"attn_{name}_out.npy"),
                [out.numpy().astype(np.float32), w_.numpy().astype(np.float32)])
    if tensors:
        # --proj params reads the four projections too: store identities with zero biases.
        for n in ("q_proj", "k_proj", "v_proj", "out_proj"):
            tensors[n + ".weight"] = np.eye(d)
            tensors[n + ".bias"] = np.zeros(d)
        save_safetensors(os.path.join(OUT, f"attn_{name}.safetensors"), tensors)
    with open(os.path.join(OUT, f"attn_{name}.args"), "w") as f:
        f.write(" ".join(args) + "\n")


def positional_cases():
    """The paper's formula in float64, in both layouts."""
    def pe(n, d, layout, offset=0, base=10000.0):
        pos = torch.arange(n, dtype=torch.float64)[:, None] + offset
        i = torch.arange((d + 1) // 2, dtype=torch.float64)
        ang = pos / base ** (2 * i / d)
        s, c = torch.sin(ang), torch.cos(ang)[:, : d // 2]
        if layout == "halves":
            return torch.cat([s, c], dim=1)
        out = torch.zeros(n, d, dtype=torch.float64)
        out[:, 0::2] = s
        out[:, 1::2] = c
        return out
    for n, d, layout, offset in [(50, 64, "interleaved", 0), (50, 64, "halves", 0), (9, 7, "interleaved", 3),
                                 (9, 7, "halves", 0), (1000, 128, "interleaved", 0)]:
        a = pe(n, d, layout, offset).numpy().astype(np.float32)
        save_stream(os.path.join(OUT, f"pe_{layout}_n{n}_d{d}_o{offset}.npy"), [a])


def main():
    os.makedirs(OUT, exist_ok=True)
    gen = torch.Generator().manual_seed(20261129)
    attention_case("self_h1", gen, d=16, heads=1, tq=5)
    attention_case("self_h8", gen, d=32, heads=8, tq=7)
    attention_case("causal_h4", gen, d=16, heads=4, tq=6, causal=True)
    attention_case("cross_h2", gen, d=16, heads=2, tq=4, tk=6, mode="cross")
    attention_case("qkv_h8", gen, d=32, heads=8, tq=5, tk=9, mode="qkv")
    attention_case("padding_h4", gen, d=16, heads=4, tq=6, batch=3, key_lengths=[6, 4, 1])
    attention_case("cross_padding_causal_h2", gen, d=16, heads=2, tq=5, tk=5, batch=2, mode="cross",
                   key_lengths=[5, 3], causal=True)
    attention_case("shared_kv_h4", gen, d=16, heads=4, tq=6, mode="cross", tk=8, shared_kv=True)
    attention_case("long_h2", gen, d=32, heads=2, tq=200)  # several query blocks
    plain_attention_case("identity_h1", gen, d=8, heads=1, t=6, scaled=True)
    plain_attention_case("identity_unscaled_h2", gen, d=8, heads=2, t=6, scaled=False)
    plain_attention_case("additive_h2", gen, d=8, heads=2, t=5, scaled=True, additive_dim=6)
    positional_cases()


if __name__ == "__main__":
    main()
