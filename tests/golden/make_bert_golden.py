#!/usr/bin/python3
"""Golden fixtures for BERT-layout encoders and their WordPiece tokenizer, computed with PyTorch.

Run from the repository root:  /usr/bin/python3 tests/golden/make_bert_golden.py
transformers is not available here, so BERT's forward (BertModel: embeddings, post-norm layers
with exact GELU, pooler) and its tokenizer (BasicTokenizer + WordpieceTokenizer) are written
below in plain torch and Python from their definitions, independently of tfm's code.

For each variant <name> it writes tests/golden/data/bert_<name>/ (config.json, weights in HF
names, vocab.txt, tokenizer_config.json) and:
  bert_<name>_lines.tsv   text<TAB>ids of WordPiece (no [CLS]/[SEP]) for tricky lines
  bert_<name>_io.npy      a stream: ids [B,S] (padded with [PAD]), segments [B,S], lengths [B],
                          last hidden states [B,S,D], pooled cls [B,D], mean [B,D], pooler [B,D]
                          (pooler zeros when the model has none)
  bert_<name>_pairs.tsv   the batch's inputs: a line, or two texts separated by a tab
"""
import json
import math
import os
import unicodedata

import numpy as np
import torch
import torch.nn.functional as F

from make_golden import save_safetensors, save_stream, OUT

# ---------------------------------------------------------------- the reference tokenizer


def is_whitespace(ch):
    return ch in " \t\n\r" or unicodedata.category(ch) == "Zs"


def is_control(ch):
    return ch not in "\t\n\r" and unicodedata.category(ch) in ("Cc", "Cf")


def is_punctuation(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def is_cjk(cp):
    return any(lo <= cp <= hi for lo, hi in [(0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF),
                                             (0x2A700, 0x2B73F), (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF),
                                             (0xF900, 0xFAFF), (0x2F800, 0x2FA1F)])


def basic_tokenize(text, lower):
    out = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD or is_control(ch):
            continue
        if is_whitespace(ch):
            out.append(" ")
        elif is_cjk(cp):
            out.append(" " + ch + " ")
        else:
            out.append(ch)
    text = unicodedata.normalize("NFC", "".join(out))
    words = []
    for token in text.split():
        if lower:  # HF's tokenize() lower-cases one character at a time: no final sigma
            token = "".join(c.lower() for c in token)
            token = "".join(c for c in unicodedata.normalize("NFD", token) if unicodedata.category(c) != "Mn")
        word = ""
        for ch in token:
            if is_punctuation(ch):
                if word:
                    words.append(word)
                word = ""
                words.append(ch)
            else:
                word += ch
        if word:
            words.append(word)
    return words


def wordpiece(words, vocab):
    ids = []
    for w in words:
        if len(w) > 100:
            ids.append(vocab["[UNK]"])
            continue
        start, pieces, bad = 0, [], False
        while start < len(w):
            end, found = len(w), None
            while start < end:
                sub = ("##" if start else "") + w[start:end]
                if sub in vocab:
                    found = sub
                    break
                end -= 1
            if found is None:
                bad = True
                break
            pieces.append(vocab[found])
            start = end
        ids.extend([vocab["[UNK]"]] if bad else pieces)
    return ids


# ---------------------------------------------------------------- the reference model


def forward(w, cfg, ids, segments, lengths, prefix):
    g = lambda n: w[prefix + n]
    ln_names = cfg["_ln_names"]
    def ln(x, name):
        return F.layer_norm(x, x.shape[-1:], g(name + "." + ln_names[0]), g(name + "." + ln_names[1]),
                            cfg["layer_norm_eps"])
    def lin(x, name):
        return F.linear(x, g(name + ".weight"), g(name + ".bias"))
    b, s = ids.shape
    h, d = cfg["num_attention_heads"], cfg["hidden_size"]
    x = g("embeddings.word_embeddings.weight")[ids] + g("embeddings.position_embeddings.weight")[:s][None] \
        + g("embeddings.token_type_embeddings.weight")[segments]
    x = ln(x, "embeddings.LayerNorm")
    mask = torch.arange(s)[None, :] < torch.tensor(lengths)[:, None]          # [B,S] real tokens
    bias = torch.zeros(b, 1, 1, s).masked_fill(~mask[:, None, None, :], float("-inf"))
    for l in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{l}"
        split = lambda t: t.view(b, s, h, d // h).transpose(1, 2)             # [B,H,S,dk]
        q, k, v = (split(lin(x, p + ".attention.self." + n)) for n in ("query", "key", "value"))
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d // h) + bias, -1)
        ctx = (att @ v).transpose(1, 2).reshape(b, s, d)
        x = ln(x + lin(ctx, p + ".attention.output.dense"), p + ".attention.output.LayerNorm")
        inter = F.gelu(lin(x, p + ".intermediate.dense"))
        x = ln(x + lin(inter, p + ".output.dense"), p + ".output.LayerNorm")
    cls = x[:, 0]
    mean = (x * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)
    pooled = torch.tanh(lin(cls, "pooler.dense")) if cfg["_pooler"] else torch.zeros_like(cls)
    return x, cls, mean, pooled


# ---------------------------------------------------------------- fixtures

LINES = [
    "The quick brown fox jumps over the lazy dog.",
    "Hello, world! It's a test-case: (really) \"quoted\" text...",
    "Café déjà vu — naïve Ångström façade résumé",
    "CAFÉ Déjà Vu NAÏVE",
    "中文字符和日本語の混合テキスト",
    "Mixed 中文 and English words",
    "tabs\tand   spaces\u00a0and\u2003em spaces",
    "control\x01chars\x7fand\u200bzero width",
    "Supercalifragilisticexpialidocious" * 4,
    "antidisestablishmentarianism unbelievable unhappiness",
    "numbers 123 4,567.89 and 3.14159",
    "emoji 😀 and symbols © ® ™ €",
    "",
    "   ",
    "a",
    "¿Qué? ¡Sí! «Guillemets» „Anführung“",
]

PAIRS = [
    "The quick brown fox jumps over the lazy dog.",
    "Café déjà vu\tnaïve façade",
    "short",
    "Hello, world!\tIt's a test-case: (really) quoted text for the second segment.",
    "中文字符\tMixed English",
    "unbelievable unhappiness antidisestablishmentarianism " * 3,
]


def build_vocab(lower, rng):
    words = set()
    for line in LINES + PAIRS:
        for piece in line.split("\t"):
            words.update(basic_tokenize(piece, lower))
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    chars = sorted({c for w in words for c in w})
    vocab += chars + ["##" + c for c in chars]
    for w in sorted(words):  # whole words for some, prefixes and ## suffixes for others
        r = rng.random()
        if len(w) > 1 and r < 0.4:
            vocab.append(w)
        elif len(w) > 3 and r < 0.8:
            cut = len(w) // 2
            vocab += [w[:cut], "##" + w[cut:]]
    vocab = list(dict.fromkeys(vocab))
    vocab = [v for v in vocab if v not in ("##😀",)]  # one character no piece spells: [UNK]
    return vocab


def variant(name, gen, rng, lower, prefix, torch_file, pooler, old_ln):
    d, layers, heads, ffn, positions, types = 32, 2, 4, 64, 40, 2
    vocab = build_vocab(lower, rng)
    ids_of = {v: i for i, v in enumerate(vocab)}
    cfg = {"model_type": "bert", "hidden_size": d, "num_hidden_layers": layers, "num_attention_heads": heads,
           "intermediate_size": ffn, "vocab_size": len(vocab), "max_position_embeddings": positions,
           "type_vocab_size": types, "hidden_act": "gelu", "layer_norm_eps": 1e-12, "pad_token_id": 0,
           "position_embedding_type": "absolute", "architectures": ["BertModel"]}
    ln_names = ("gamma", "beta") if old_ln else ("weight", "bias")
    w = {}
    def t(*shape, scale=0.2):
        return torch.randn(*shape, generator=gen) * scale
    def add_ln(n):
        w[prefix + n + "." + ln_names[0]] = 1 + t(d, scale=0.1)
        w[prefix + n + "." + ln_names[1]] = t(d, scale=0.1)
    def add_lin(n, o, i):
        w[prefix + n + ".weight"] = t(o, i, scale=1 / math.sqrt(i))
        w[prefix + n + ".bias"] = t(o, scale=0.1)
    w[prefix + "embeddings.word_embeddings.weight"] = t(len(vocab), d, scale=1.0)
    w[prefix + "embeddings.position_embeddings.weight"] = t(positions, d, scale=0.5)
    w[prefix + "embeddings.token_type_embeddings.weight"] = t(types, d, scale=0.5)
    add_ln("embeddings.LayerNorm")
    for l in range(layers):
        p = f"encoder.layer.{l}"
        for n in ("query", "key", "value"):
            add_lin(p + ".attention.self." + n, d, d)
        add_lin(p + ".attention.output.dense", d, d)
        add_ln(p + ".attention.output.LayerNorm")
        add_lin(p + ".intermediate.dense", ffn, d)
        add_lin(p + ".output.dense", d, ffn)
        add_ln(p + ".output.LayerNorm")
    if pooler:
        add_lin("pooler.dense", d, d)
    w["cls.predictions.bias"] = t(len(vocab))  # a head the encoder does not use
    out = os.path.join(OUT, f"bert_{name}")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    with open(os.path.join(out, "vocab.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(vocab) + "\n")
    with open(os.path.join(out, "tokenizer_config.json"), "w") as f:
        json.dump({"do_lower_case": lower, "tokenizer_class": "BertTokenizer"}, f)
    if torch_file:
        torch.save(w, os.path.join(out, "pytorch_model.bin"))
    else:
        save_safetensors(os.path.join(out, "model.safetensors"), {k: v.numpy() for k, v in w.items()})

    with open(os.path.join(OUT, f"bert_{name}_lines.tsv"), "w", encoding="utf-8") as f:
        for line in LINES:
            ids = wordpiece(basic_tokenize(line, lower), ids_of)
            f.write(line.replace("\t", "\\t").replace("\n", "\\n") + "\t" + " ".join(map(str, ids)) + "\n")

    seqs, segs = [], []
    for item in PAIRS:
        parts = item.split("\t")
        a = wordpiece(basic_tokenize(parts[0], lower), ids_of)
        b = wordpiece(basic_tokenize(parts[1], lower), ids_of) if len(parts) > 1 else None
        limit = positions - (3 if b is not None else 2)
        while len(a) + len(b or []) > limit:  # longest_first
            if b is None or len(a) > len(b):
                a = a[:-1]
            else:
                b = b[:-1]
        seq = [ids_of["[CLS]"]] + a + [ids_of["[SEP]"]]
        seg = [0] * len(seq)
        if b is not None:
            seq += b + [ids_of["[SEP]"]]
            seg += [1] * (len(b) + 1)
        seqs.append(seq)
        segs.append(seg)
    lengths = [len(s) for s in seqs]
    s = max(lengths)
    ids = torch.zeros(len(seqs), s, dtype=torch.long)
    seg = torch.zeros(len(seqs), s, dtype=torch.long)
    for i, (q, g) in enumerate(zip(seqs, segs)):
        ids[i, :len(q)] = torch.tensor(q)
        seg[i, :len(g)] = torch.tensor(g)
    cfg["_ln_names"], cfg["_pooler"] = ln_names, pooler
    with torch.no_grad():
        x, cls, mean, pooled = forward(w, cfg, ids, seg, lengths, prefix)
    save_stream(os.path.join(OUT, f"bert_{name}_io.npy"),
                [ids.numpy(), seg.numpy(), np.array(lengths, dtype=np.int64), x.numpy(), cls.numpy(), mean.numpy(),
                 pooled.numpy()])
    with open(os.path.join(OUT, f"bert_{name}_pairs.tsv"), "w", encoding="utf-8") as f:
        f.write("\n".join(PAIRS) + "\n")


def main():
    gen = torch.Generator().manual_seed(1201)
    rng = np.random.default_rng(1201)
    variant("uncased", gen, rng, lower=True, prefix="", torch_file=False, pooler=True, old_ln=False)
    variant("cased", gen, rng, lower=False, prefix="bert.", torch_file=True, pooler=False, old_ln=True)


if __name__ == "__main__":
    main()
