#!/usr/bin/python3
"""A base-size OPUS-MT model (d_model 512, 6+6 layers, 8 heads, FFN 2048, swish, vocabulary
58101 as opus-mt-de-en's: ~74M parameters), random weights, in the forms people download:
  OUT/hf/        config.json (2020 style), pytorch_model.bin in torch.save's legacy format,
                 vocab.json, source.spm, target.spm
  OUT/marian/    the same as a Marian release: model .npz, vocab.yml, decoder.yml, .spm files
Used by tests/bench/opus_load.sh. Needs python3-torch:
  /usr/bin/python3 tests/bench/make_opus_base.py OUT SPM_DIR
(SPM_DIR: a model directory whose source.spm/target.spm are copied; their pieces get ids.)
"""
import collections
import json
import os
import shutil
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden"))
from make_opus_golden import base_config, hf_state, marian_release_arrays, write_marian_release  # noqa: E402


def main():
    out, spm_dir = sys.argv[1], sys.argv[2]
    v, d, f, layers = 58101, 512, 2048, 6
    pieces = []
    import sentencepiece as spm
    for name in ("source.spm", "target.spm"):
        sp = spm.SentencePieceProcessor(model_file=os.path.join(spm_dir, name))
        pieces += [sp.id_to_piece(i) for i in range(sp.get_piece_size())]
    vocab = {"</s>": 0, "<unk>": 1}
    for p in dict.fromkeys(pieces):
        if p not in vocab and p not in ("<s>", "<pad>"):
            vocab[p] = len(vocab)
    k = 0
    while len(vocab) < v - 1:
        vocab[f"▁filler{k}"] = len(vocab)
        k += 1
    vocab["<pad>"] = v - 1
    cfg = base_config(v, v - 1, 0, d_model=d, encoder_layers=layers, decoder_layers=layers, encoder_attention_heads=8,
                      decoder_attention_heads=8, encoder_ffn_dim=f, decoder_ffn_dim=f, num_hidden_layers=layers)
    g = torch.Generator().manual_seed(1)
    w = collections.OrderedDict()
    w["model.shared.weight"] = torch.randn(v, d, generator=g) * d ** -0.5
    w["model.shared.weight"][v - 1] = 0
    w["final_logits_bias"] = torch.zeros(1, v)
    for side in ("encoder", "decoder"):
        for l in range(layers):
            p = f"model.{side}.layers.{l}"
            for a in ["self_attn"] + (["encoder_attn"] if side == "decoder" else []):
                for x in ("q_proj", "k_proj", "v_proj", "out_proj"):
                    w[f"{p}.{a}.{x}.weight"] = torch.randn(d, d, generator=g) * d ** -0.5
                    w[f"{p}.{a}.{x}.bias"] = torch.zeros(d)
                w[f"{p}.{a}_layer_norm.weight"] = torch.ones(d)
                w[f"{p}.{a}_layer_norm.bias"] = torch.zeros(d)
            w[f"{p}.fc1.weight"] = torch.randn(f, d, generator=g) * d ** -0.5
            w[f"{p}.fc1.bias"] = torch.zeros(f)
            w[f"{p}.fc2.weight"] = torch.randn(d, f, generator=g) * f ** -0.5
            w[f"{p}.fc2.bias"] = torch.zeros(d)
            w[f"{p}.final_layer_norm.weight"] = torch.ones(d)
            w[f"{p}.final_layer_norm.bias"] = torch.zeros(d)
    hf = os.path.join(out, "hf")
    os.makedirs(hf, exist_ok=True)
    with open(os.path.join(hf, "config.json"), "w") as fh:
        json.dump(cfg, fh, indent=2)
    with open(os.path.join(hf, "vocab.json"), "w", encoding="utf-8") as fh:
        json.dump(vocab, fh, ensure_ascii=False)
    for name in ("source.spm", "target.spm"):
        shutil.copy(os.path.join(spm_dir, name), hf)
    torch.save(hf_state(w, cfg), os.path.join(hf, "pytorch_model.bin"), _use_new_zipfile_serialization=False)
    write_marian_release(os.path.join(out, "marian"), marian_release_arrays(cfg, w), cfg, vocab,
                         os.path.join(spm_dir, "source.spm"), os.path.join(spm_dir, "target.spm"))
    print(sum(t.numel() for k, t in w.items()), "parameters")


if __name__ == "__main__":
    main()
