#!/usr/bin/python3
"""A random model of NLLB-200-distilled-600M's shape as transformers publishes it, for speed and
memory measurements (tests/bench/nllb_shape.sh): model_type m2m_100, 12+12 layers, d_model 1024,
16 heads, FFN 4096, vocabulary 256,206, weights in model.safetensors (F32 by default, or F16), the
tokenizer files of tests/golden/data/m2m_nllb (its small SentencePiece model; the language codes
renumbered after its pieces as NLLB's are). The weights are random: outputs are noise, timings
and memory are the real shape's.

Usage: /usr/bin/python3 tests/bench/make_nllb_shape.py OUT_DIR [--f16] [--layers N]
"""
import json
import os
import shutil
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "golden", "data", "m2m_nllb")


def main():
    out = sys.argv[1]
    f16 = "--f16" in sys.argv
    layers = int(sys.argv[sys.argv.index("--layers") + 1]) if "--layers" in sys.argv else 12
    d, ffn, v = 1024, 4096, 256206
    os.makedirs(out, exist_ok=True)
    cfg = json.load(open(os.path.join(GOLDEN, "config.json")))
    cfg.update(d_model=d, encoder_layers=layers, decoder_layers=layers, num_hidden_layers=layers,
               encoder_attention_heads=16, decoder_attention_heads=16, encoder_ffn_dim=ffn, decoder_ffn_dim=ffn,
               vocab_size=v, max_position_embeddings=1024)
    json.dump(cfg, open(os.path.join(out, "config.json"), "w"), indent=2)
    for f in ("generation_config.json", "sentencepiece.bpe.model", "special_tokens_map.json", "tokenizer_config.json"):
        shutil.copy(os.path.join(GOLDEN, f), out)
    rng = np.random.default_rng(600)
    dtype, name = (np.float16, "F16") if f16 else (np.float32, "F32")
    tensors = {"model.shared.weight": (v, d)}
    for side in ("encoder", "decoder"):
        for l in range(layers):
            p = f"model.{side}.layers.{l}"
            blocks = ["self_attn"] + (["encoder_attn"] if side == "decoder" else [])
            for b in blocks:
                for x in ("q_proj", "k_proj", "v_proj", "out_proj"):
                    tensors[f"{p}.{b}.{x}.weight"] = (d, d)
                    tensors[f"{p}.{b}.{x}.bias"] = (d,)
                tensors[f"{p}.{b}_layer_norm.weight"] = (d,)
                tensors[f"{p}.{b}_layer_norm.bias"] = (d,)
            tensors[f"{p}.fc1.weight"] = (ffn, d)
            tensors[f"{p}.fc1.bias"] = (ffn,)
            tensors[f"{p}.fc2.weight"] = (d, ffn)
            tensors[f"{p}.fc2.bias"] = (d,)
            tensors[f"{p}.final_layer_norm.weight"] = (d,)
            tensors[f"{p}.final_layer_norm.bias"] = (d,)
        tensors[f"model.{side}.layer_norm.weight"] = (d,)
        tensors[f"model.{side}.layer_norm.bias"] = (d,)
    header, at = {}, 0
    size = np.dtype(dtype).itemsize
    for k, shape in tensors.items():
        n = int(np.prod(shape)) * size
        header[k] = {"dtype": name, "shape": list(shape), "data_offsets": [at, at + n]}
        at += n
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(os.path.join(out, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for k, shape in tensors.items():
            if k.endswith("layer_norm.weight"):
                a = np.ones(shape, dtype=dtype)
            elif len(shape) == 1:
                a = np.zeros(shape, dtype=dtype)
            else:
                a = (rng.standard_normal(shape, dtype=np.float32) * shape[-1] ** -0.5).astype(dtype)
            f.write(a.tobytes())


if __name__ == "__main__":
    main()
