#!/usr/bin/python3
"""Sentence vectors from a BERT-base-shaped model (12 layers, D=768, H=12, F=3072, random
weights, HF layout): tfm-encode --pool mean against PyTorch running the reference forward of
tests/golden/make_bert_golden.py, same lines, batches of 32 sorted by length, same threads,
best of 3 runs each, in one run. Also checks that both give the same vectors.

  /usr/bin/python3 tests/bench/bert_vs_pytorch.py LINES_FILE [BUILD_DIR] [WORK_DIR] [THREADS]

LINES_FILE: text, one sentence per line (e.g. zcat test_2016_flickr.en.gz > lines.txt).
tfm's time is the whole command (loading the model, tokenizing, writing .npy); PyTorch's is
the forward passes alone (tokenized beforehand, model already in memory).
"""
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "golden"))
from make_bert_golden import basic_tokenize, wordpiece, forward  # noqa: E402
from make_golden import save_safetensors  # noqa: E402


def make_model(path, lines, gen):
    words = sorted({w for line in lines for w in basic_tokenize(line, True)})
    chars = sorted({c for w in words for c in w})
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + chars + ["##" + c for c in chars] + words
    vocab = list(dict.fromkeys(vocab))
    vocab += [f"[unused{i}]" for i in range(30522 - len(vocab))]
    d, layers, heads, ffn, positions = 768, 12, 12, 3072, 512
    cfg = {"model_type": "bert", "hidden_size": d, "num_hidden_layers": layers, "num_attention_heads": heads,
           "intermediate_size": ffn, "vocab_size": len(vocab), "max_position_embeddings": positions,
           "type_vocab_size": 2, "hidden_act": "gelu", "layer_norm_eps": 1e-12, "pad_token_id": 0}
    w = {}
    r = lambda *s: (torch.randn(*s, generator=gen) * 0.02)
    w["embeddings.word_embeddings.weight"] = r(len(vocab), d)
    w["embeddings.position_embeddings.weight"] = r(positions, d)
    w["embeddings.token_type_embeddings.weight"] = r(2, d)
    def ln(n):
        w[n + ".weight"], w[n + ".bias"] = torch.ones(d), torch.zeros(d)
    def lin(n, o, i):
        w[n + ".weight"], w[n + ".bias"] = r(o, i), torch.zeros(o)
    ln("embeddings.LayerNorm")
    for l in range(layers):
        p = f"encoder.layer.{l}"
        for n in ("query", "key", "value"):
            lin(f"{p}.attention.self.{n}", d, d)
        lin(f"{p}.attention.output.dense", d, d)
        ln(f"{p}.attention.output.LayerNorm")
        lin(f"{p}.intermediate.dense", ffn, d)
        lin(f"{p}.output.dense", d, ffn)
        ln(f"{p}.output.LayerNorm")
    lin("pooler.dense", d, d)
    os.makedirs(path, exist_ok=True)
    save_safetensors(os.path.join(path, "model.safetensors"), {k: v.numpy() for k, v in w.items()})
    json.dump(cfg, open(os.path.join(path, "config.json"), "w"))
    open(os.path.join(path, "vocab.txt"), "w", encoding="utf-8").write("\n".join(vocab) + "\n")
    return cfg, w, {v: i for i, v in enumerate(vocab)}


def main():
    lines_file = sys.argv[1]
    build = sys.argv[2] if len(sys.argv) > 2 else "build"
    work = sys.argv[3] if len(sys.argv) > 3 else tempfile.mkdtemp()
    threads = int(sys.argv[4]) if len(sys.argv) > 4 else os.cpu_count()
    lines = open(lines_file, encoding="utf-8").read().split("\n")[:-1]
    model = os.path.join(work, "bert-base")
    cfg, w, vocab = make_model(model, lines, torch.Generator().manual_seed(7))
    cfg["_ln_names"], cfg["_pooler"] = ("weight", "bias"), True
    seqs = [[vocab["[CLS]"]] + wordpiece(basic_tokenize(l, True), vocab)[:510] + [vocab["[SEP]"]] for l in lines]
    print(f"{len(lines)} lines, {sum(map(len, seqs)) / len(seqs):.1f} tokens on average; BERT-base shape, "
          f"{threads} threads, batch 32")

    env = dict(os.environ, TFM_THREADS=str(threads))
    out = os.path.join(work, "tfm.npy")
    best = None
    for _ in range(3):
        t = time.perf_counter()
        with open(lines_file, "rb") as src, open(out, "wb") as dst:
            subprocess.run([os.path.join(build, "bin", "tfm-encode"), "-m", model, "--pool", "mean",
                            "--batch-size", "32"], stdin=src, stdout=dst, check=True, env=env)
        best = min(best or 1e9, time.perf_counter() - t)
    tfm_rate = len(lines) / best
    print(f"tfm-encode --pool mean (whole command)   {best:7.2f} s  {tfm_rate:8.1f} sentences/s")

    torch.set_num_threads(threads)
    order = sorted(range(len(seqs)), key=lambda i: -len(seqs[i]))
    vecs = [None] * len(seqs)
    best = None
    with torch.no_grad():
        for _ in range(3):
            t = time.perf_counter()
            for s in range(0, len(order), 32):
                idx = order[s:s + 32]
                lens = [len(seqs[i]) for i in idx]
                ids = torch.zeros(len(idx), max(lens), dtype=torch.long)
                for j, i in enumerate(idx):
                    ids[j, :lens[j]] = torch.tensor(seqs[i])
                _, _, mean, _ = forward(w, cfg, ids, torch.zeros_like(ids), lens, "")
                for j, i in enumerate(idx):
                    vecs[i] = mean[j].numpy()
            best = min(best or 1e9, time.perf_counter() - t)
    torch_rate = len(lines) / best
    print(f"PyTorch {torch.__version__} forward (model loaded)      {best:7.2f} s  {torch_rate:8.1f} sentences/s")
    print(f"tfm / PyTorch: {tfm_rate / torch_rate:.2f}x")
    got = []
    with open(out, "rb") as f:
        while True:
            try:
                got.append(np.load(f))
            except (EOFError, ValueError):
                break
    diff = max(float(np.abs(g - v).max()) for g, v in zip(got, vecs))
    print(f"same vectors: {len(got)} records, largest difference {diff:.2e}")


if __name__ == "__main__":
    main()
