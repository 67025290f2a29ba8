#!/usr/bin/python3
"""PyTorch's nn.Transformer training on the workload of `tfm-bench train`.

The small preset by default: 3+3 layers, D=256, H=4, F=1024 (--preset base: 6+6, 512, 8, 2048);
V=8000 (shared embedding scaled by sqrt(D), tied output, sinusoidal positions), dropout 0.1,
label smoothing 0.1, Adam(0.9, 0.98, 1e-9); 128 random sentence pairs of 16 tokens per update.
--autocast bf16 runs forward and loss under torch.autocast("cpu", dtype=torch.bfloat16), the
one line a PyTorch user adds for mixed precision (`tfm-bench train --compute-type bfloat16`).
Prints one JSON line: target tokens/s, peak RSS.
Run with Debian's torch: /usr/bin/python3 tests/bench/pytorch_train.py [--threads 2] [--preset base] [--autocast bf16]
"""
import argparse
import json
import math
import resource
import time

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--preset", choices=["small", "base"], default="small")
    ap.add_argument("--autocast", choices=["none", "bf16"], default="none")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    layers, d, heads, ffn = (3, 256, 4, 1024) if a.preset == "small" else (6, 512, 8, 2048)
    v, n, length = 8000, 128, 16
    model = torch.nn.Transformer(d_model=d, nhead=heads, num_encoder_layers=layers, num_decoder_layers=layers,
                                 dim_feedforward=ffn, dropout=0.1, batch_first=True)
    emb = torch.nn.Embedding(v, d)
    params = list(model.parameters()) + list(emb.parameters())
    opt = torch.optim.Adam(params, lr=1e-4, betas=(0.9, 0.98), eps=1e-9)
    loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=0.1)
    pos = torch.arange(64)[:, None] / 10000 ** (torch.arange(0, d, 2) / d)
    pe = torch.zeros(64, d)
    pe[:, 0::2], pe[:, 1::2] = torch.sin(pos), torch.cos(pos)
    src = torch.randint(3, v, (n, length))
    tgt_in = torch.randint(3, v, (n, length))
    labels = torch.randint(3, v, (n, length))
    mask = model.generate_square_subsequent_mask(length)
    scale = math.sqrt(d)

    def update():
        opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=a.autocast == "bf16"):
            h = model(emb(src) * scale + pe[:length], emb(tgt_in) * scale + pe[:length], tgt_mask=mask)
            loss = loss_fn((h @ emb.weight.T).reshape(-1, v).float(), labels.reshape(-1))
        loss.backward()
        opt.step()

    update()  # warm-up
    times = []
    for _ in range(a.reps):
        t0 = time.perf_counter()
        update()
        times.append(time.perf_counter() - t0)
    times.sort()
    med = times[len(times) // 2]
    tokens = n * length
    print(json.dumps({"engine": "pytorch-nn.Transformer", "torch": torch.__version__, "threads": a.threads,
                      "preset": a.preset, "autocast": a.autocast,
                      "median_s": round(med, 3), "target_tokens": tokens, "tokens_per_s": round(tokens / med, 1),
                      "peak_rss_MiB": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}))


if __name__ == "__main__":
    main()
