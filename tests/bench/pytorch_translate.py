#!/usr/bin/python3
"""PyTorch's nn.Transformer decoding the benchmark workload of `tfm-bench translate`.

The paper's base preset (N=6, D=512, H=8, F=2048), shared embeddings scaled by sqrt(D),
sinusoidal positions, V=8000, random weights; 32 sentences x 20 source tokens, greedy, 24
target tokens each, the decoder recomputed over the whole prefix at each step (nn.Transformer
has no key/value cache). Prints one JSON line: target tokens/s and peak RSS.
Run with Debian's torch: /usr/bin/python3 tests/bench/pytorch_translate.py [--threads 2]
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
    ap.add_argument("--sentences", type=int, default=32)
    ap.add_argument("--source-length", type=int, default=20)
    ap.add_argument("--output-length", type=int, default=24)
    ap.add_argument("--vocab", type=int, default=8000)
    ap.add_argument("--reps", type=int, default=2)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    d, v = 512, a.vocab
    model = torch.nn.Transformer(d_model=d, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                                 dim_feedforward=2048, dropout=0.1, batch_first=True).eval()
    emb = torch.nn.Embedding(v, d)
    pos = torch.arange(512)[:, None] / 10000 ** (torch.arange(0, d, 2) / d)
    pe = torch.zeros(512, d)
    pe[:, 0::2], pe[:, 1::2] = torch.sin(pos), torch.cos(pos)
    src = torch.randint(3, v, (a.sentences, a.source_length))
    scale = math.sqrt(d)

    def translate():
        with torch.no_grad():
            memory = model.encoder(emb(src) * scale + pe[: a.source_length])
            ys = torch.zeros(a.sentences, 1, dtype=torch.long)
            for t in range(a.output_length):
                mask = model.generate_square_subsequent_mask(ys.shape[1])
                h = model.decoder(emb(ys) * scale + pe[: ys.shape[1]], memory, tgt_mask=mask)
                logits = h[:, -1] @ emb.weight.T
                logits[:, 0] = -float("inf")  # pad
                ys = torch.cat([ys, logits.argmax(-1, keepdim=True)], 1)
        return ys

    translate()  # warm-up
    times = []
    for _ in range(a.reps):
        t0 = time.perf_counter()
        translate()
        times.append(time.perf_counter() - t0)
    times.sort()
    med = times[len(times) // 2]
    tokens = a.sentences * a.output_length
    print(json.dumps({"engine": "pytorch-nn.Transformer", "torch": torch.__version__, "threads": a.threads,
                      "median_s": round(med, 3), "target_tokens": tokens, "tokens_per_s": round(tokens / med, 1),
                      "peak_rss_MiB": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}))


if __name__ == "__main__":
    main()
