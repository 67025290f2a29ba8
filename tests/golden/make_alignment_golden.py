#!/usr/bin/python3
"""Golden alignments: the encoder-decoder attention behind each greedy token, computed with PyTorch.

Run from the repository root:  /usr/bin/python3 tests/golden/make_alignment_golden.py
For the fixture models of make_model_golden.py (run that first), it writes
model_<name>_align.npy, a stream with, for each source b of the fixture's batch:
  [T_b,S_b] attention of the last decoder layer averaged over all heads,
  [T_b,S_b] attention of decoder layer 0 averaged over its first 2 heads,
where T_b is the number of greedy tokens (eos counted when generated) and S_b the source's
length. The weights come from teacher-forcing the greedy output through the reference
decoder with F.multi_head_attention_forward's per-head weights.
"""
import json
import os
import struct

import numpy as np
import torch

from make_golden import save_stream, OUT
from make_model_golden import Reference

VARIANTS = ["post_relu_interleaved", "pre_swish_halves"]


def load_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        blob = f.read()
    return {k: torch.from_numpy(np.frombuffer(blob[v["data_offsets"][0]:v["data_offsets"][1]], dtype="<f4")
                                .reshape(v["shape"]).copy())
            for k, v in header.items() if k != "__metadata__"}


def main():
    for name in VARIANTS:
        d = os.path.join(OUT, f"model_{name}")
        cfg = json.load(open(os.path.join(d, "config.json")))
        ref = Reference(cfg, load_safetensors(os.path.join(d, "model.safetensors")))
        with open(os.path.join(OUT, f"model_{name}_io.npy"), "rb") as f:
            src, lengths = torch.from_numpy(np.load(f)), np.load(f).tolist()
        max_len = 12
        out = []
        with torch.no_grad():
            memory = ref.encode(src, lengths)
            greedy = ref.greedy(memory, lengths, max_len)
            for b, ids in enumerate(greedy):
                steps = len(ids) + (1 if len(ids) < max_len else 0)  # eos counted when generated
                tgt = torch.tensor([[cfg["decoder_start_token_id"]] + ids])[:, :steps]
                ref.kept = []
                ref.decode(tgt, memory[b:b + 1, : lengths[b]], [lengths[b]])
                cross = [w[0] for n, w in ref.kept if n.endswith("encoder_attn")]  # per layer [H,T,S]
                ref.kept = None
                out.append(cross[-1].mean(0).numpy().astype(np.float32))
                out.append(cross[0][:2].mean(0).numpy().astype(np.float32))
        save_stream(os.path.join(OUT, f"model_{name}_align.npy"), out)


if __name__ == "__main__":
    main()
