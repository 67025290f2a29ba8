#!/usr/bin/python3
"""OPUS-MT-shaped model directories and a Marian release, as published, for tests.

Run from the repository root:  /usr/bin/python3 tests/golden/make_opus_golden.py
(needs python3-torch, python3-sentencepiece, python3-yaml). Writes into tests/golden/data/:
  opus_spm/{source,target}.spm      two small SentencePiece models (unk 0, <s> 1, </s> 2)
  opus_base/     a 2020-style upload: config.json with the generation keys in it (num_beams,
                 max_length, bad_words_ids [[pad]]) and obsolete keys, swish, eos 0, <unk> 1,
                 pad = decoder start = the last id, vocab.json whose ids are not the
                 SentencePiece ids (some pieces missing), weights in pytorch_model.bin written
                 with torch.save's legacy format, model.shared / embed_tokens / lm_head aliased
  opus_tcbig/    a tc-big-style multi-target model: relu, eos in the middle of the vocabulary,
                 <unk> and <s> elsewhere, >>fra<< >>por<< >>ita<< codes, generation_config.json
                 with forced_eos_token_id, weights in model.safetensors as F16
  opus_separate/ separate vocabularies (vocab.json + target_vocab.json,
                 share_encoder_decoder_embeddings false), pytorch_model.bin in the zip format
  marian_release/  opus_base as Marian saves it: model .npz with Marian's names and the
                 options inside as special:model.yml, vocab.yml, decoder.yml, the .spm files
  opus_<name>_io.npy   as model_<name>_io.npy of make_model_golden.py
  opus_<name>_lines.tsv  source line, its ids, greedy output ids, output text (tab-separated):
                 MarianTokenizer's rules written here independently, the reference forward of
                 make_model_golden.py; marian_release's line file uses Marian's LayerNorm eps
                 (1e-6), the HF directories transformers' (1e-5)
"""
import collections
import io
import json
import os
import random
import re
import shutil

import numpy as np
import sentencepiece as spm
import torch
import yaml

from make_golden import OUT, save_safetensors, save_stream
from make_model_golden import Reference, make_weights

SRC_WORDS = "der die das Haus Hund Katze rennt schnell langsam am See Berg Stadt ein eine klein groß rot blau " \
            "sieht läuft spielt Kind Mann Frau Ball Wasser über unter neben heute morgen".split()
TGT_WORDS = "the a house dog cat runs fast slowly by lake mountain city small big red blue sees walks plays " \
            "child man woman ball water over under next today tomorrow".split()
LINES = [
    "ein Hund rennt am See .",
    "die Katze sieht das Haus",
    ">>por<< ein Kind spielt",
    "der Mann >>fra<< läuft über den Berg",
    ">>ita<<eine Frau",
    ">>xyz<< das Wasser",
    "",
    "Zebra Quokka",
]


def train_spm(words, seed, path):
    rng = random.Random(seed)
    sents = [" ".join(rng.choice(words) for _ in range(rng.randint(3, 9))) for _ in range(400)]
    buf = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(sents), model_writer=buf, vocab_size=48,
                                   model_type="unigram", character_coverage=1.0, num_threads=1, seed_sentencepiece_size=1000,
                                   shuffle_input_sentence=False, normalization_rule_name="identity")
    with open(path, "wb") as f:
        f.write(buf.getvalue())


def pieces_of(path):
    sp = spm.SentencePieceProcessor(model_file=path)
    return [sp.id_to_piece(i) for i in range(sp.get_piece_size())]


def make_vocab(pieces, size, rng, special, missing=3):
    """piece -> id: the specials at their ids, the other pieces shuffled into the rest, a few
    pieces left out (they must become <unk>), fillers up to size."""
    ordinary = [p for p in dict.fromkeys(pieces) if p not in ("<unk>", "<s>", "</s>")]
    rng.shuffle(ordinary)
    ordinary = ordinary[missing:]
    free = [i for i in range(size) if i not in special.values()]
    vocab = dict(special)
    k = 0
    for p in ordinary:
        vocab[p] = free[k]
        k += 1
    while k < len(free):
        vocab[f"<fill{k}>"] = free[k]
        k += 1
    return vocab


def tokenize(line, sp, vocab, eos):
    """MarianTokenizer: a leading >>...<< kept whole, other codes dropped, unknown -> <unk>."""
    code = []
    if line.startswith(">>") and line.find("<<") != -1:
        end = line.find("<<")
        code, line = [line[:end + 2]], line[end + 2:]
    line = re.sub(r">>[A-Za-z0-9_-]+<<", "", line)
    pieces = code + sp.encode(line, out_type=str)
    return [vocab.get(p, vocab["<unk>"]) for p in pieces] + [eos]


def detokenize(ids, sp, vocab, cfg):
    inv = {i: p for p, i in vocab.items()}
    skip = {cfg["eos_token_id"], cfg["pad_token_id"], vocab["<unk>"]}
    pieces = [inv[i] for i in ids if i not in skip and i in inv and not re.fullmatch(r">>[A-Za-z0-9_-]+<<", inv[i])]
    return sp.decode_pieces(pieces)


def reference_config(cfg, eps):
    r = dict(cfg)
    r.setdefault("tie_word_embeddings", True)
    r.update(tfm_norm_placement="post", tfm_position_encoding="sinusoidal_halves", tfm_layer_norm_eps=eps)
    return r


def run_reference(name, cfg, w, src_vocab, tgt_vocab, src_sp, tgt_sp, eps, gen):
    ref = Reference(reference_config(cfg, eps), w)
    rows = []
    with torch.no_grad():
        for line in LINES:
            ids = tokenize(line, src_sp, src_vocab, cfg["eos_token_id"]) if line.strip() else []
            out = []
            if ids:
                memory = ref.encode(torch.tensor([ids]), [len(ids)])
                out = ref.greedy(memory, [len(ids)], len(ids) + 50)[0]
                margin = greedy_margin(ref, memory, len(ids), out, cfg)
                assert margin > 1e-3, f"{name}: a near tie ({margin}) in the greedy path of {line!r}"

            rows.append("\t".join([line, " ".join(map(str, ids)), " ".join(map(str, out)),
                                   detokenize(out, tgt_sp, tgt_vocab, cfg)]))
        # teacher-forced batch, as make_model_golden.py's streams
        srcs = [tokenize(l, src_sp, src_vocab, cfg["eos_token_id"]) for l in LINES[:3]]
        lengths = [len(s) for s in srcs]
        src = torch.full((len(srcs), max(lengths)), cfg["pad_token_id"], dtype=torch.long)
        for b, s in enumerate(srcs):
            src[b, :len(s)] = torch.tensor(s)
        vt = cfg.get("decoder_vocab_size", cfg["vocab_size"])
        tgt = torch.randint(3, vt - 1, (len(srcs), 5), generator=gen)
        tgt[:, 0] = cfg["decoder_start_token_id"]
        memory = ref.encode(src, lengths)
        logits = ref.decode(tgt, memory, lengths)
        greedy = ref.greedy(memory, lengths, 12)
    g = np.full((len(srcs), 12), -1, dtype=np.int64)
    for b, ids in enumerate(greedy):
        g[b, :len(ids)] = ids
    save_stream(os.path.join(OUT, f"opus_{name}_io.npy"),
                [src.numpy(), np.array(lengths, dtype=np.int64), tgt.numpy(), memory.numpy(), logits.numpy(), g,
                 np.array([12], dtype=np.int64)])
    with open(os.path.join(OUT, f"opus_{name}_lines.tsv"), "w", encoding="utf-8") as f:
        f.write("\n".join(rows) + "\n")


def greedy_margin(ref, memory, n, out, cfg):
    """The smallest gap between the best and the second-best logit along a greedy path: the
    fixture is only meaningful where no other implementation could pick differently."""
    ids = [cfg["decoder_start_token_id"]] + out
    logits = ref.decode(torch.tensor([ids]), memory, [n])[0]
    logits[:, cfg["pad_token_id"]] = -float("inf")
    top = torch.topk(logits, 2, dim=-1).values
    return float((top[:, 0] - top[:, 1]).min())


def tune_eos(cfg, w, vocab, sp, eps):
    """The eos logit bias (of a few tried) under which most lines end with eos after 1 to 40
    tokens: outputs that exercise eos, not a random model's endless repetition."""
    best, best_score = 0.0, -1
    for bias in [0.0, 0.5, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 3.0]:
        w["final_logits_bias"][0, cfg["eos_token_id"]] = bias
        ref = Reference(reference_config(cfg, eps), w)
        score = 0
        with torch.no_grad():
            for line in LINES:
                if not line.strip():
                    continue
                ids = tokenize(line, sp, vocab, cfg["eos_token_id"])
                out = ref.greedy(ref.encode(torch.tensor([ids]), [len(ids)]), [len(ids)], 41)[0]
                score += 1 <= len(out) < 41
        if score > best_score:
            best, best_score = bias, score
    w["final_logits_bias"][0, cfg["eos_token_id"]] = best


def hf_state(w, cfg):
    """The state dict as transformers saves it: embed_tokens and lm_head aliasing model.shared."""
    sd = collections.OrderedDict()
    for k, v in w.items():
        sd[k] = v
    if "model.shared.weight" in w:
        sd["model.encoder.embed_tokens.weight"] = w["model.shared.weight"]
        sd["model.decoder.embed_tokens.weight"] = w["model.shared.weight"]
        sd["lm_head.weight"] = w["model.shared.weight"]
    else:
        sd["lm_head.weight"] = w["model.decoder.embed_tokens.weight"]
    sd["model.encoder.embed_positions.weight"] = torch.zeros(cfg["max_position_embeddings"], cfg["d_model"])
    sd["model.decoder.embed_positions.weight"] = torch.zeros(cfg["max_position_embeddings"], cfg["d_model"])
    return sd


def weights(cfg, gen, eos_bias):
    w = make_weights(reference_config(cfg, 1e-5), gen)
    for k in ("model.encoder.embed_positions.weight", "model.decoder.embed_positions.weight"):
        w.pop(k, None)
    w["final_logits_bias"][0, cfg["eos_token_id"]] = eos_bias
    w["final_logits_bias"][0, cfg["pad_token_id"]] = 0.0
    return w


def write_dir(name, cfg, files):
    d = os.path.join(OUT, f"opus_{name}")
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    for fname, content in files.items():
        with open(os.path.join(d, fname), "w", encoding="utf-8") as f:
            f.write(content if isinstance(content, str) else json.dumps(content, ensure_ascii=False))
    shutil.copy(os.path.join(OUT, "opus_spm", "source.spm"), d)
    shutil.copy(os.path.join(OUT, "opus_spm", "target.spm"), d)
    return d


def base_config(v, pad, eos, **extra):
    cfg = {
        "activation_dropout": 0.0, "activation_function": "swish", "add_bias_logits": False,
        "add_final_layer_norm": False, "architectures": ["MarianMTModel"], "attention_dropout": 0.0,
        "bad_words_ids": [[pad]], "bos_token_id": 0, "classif_dropout": 0.0, "d_model": 16,
        "decoder_attention_heads": 4, "decoder_ffn_dim": 32, "decoder_layerdrop": 0.0, "decoder_layers": 2,
        "decoder_start_token_id": pad, "dropout": 0.1, "encoder_attention_heads": 4, "encoder_ffn_dim": 32,
        "encoder_layerdrop": 0.0, "encoder_layers": 2, "eos_token_id": eos, "extra_pos_embeddings": v,
        "init_std": 0.02, "is_encoder_decoder": True, "max_length": 512, "max_position_embeddings": 512,
        "model_type": "marian", "normalize_before": False, "normalize_embedding": False, "num_beams": 4,
        "num_hidden_layers": 2, "pad_token_id": pad, "scale_embedding": True, "static_position_embeddings": True,
        "vocab_size": v,
    }
    cfg.update(extra)
    return cfg


def marian_release_arrays(cfg, w):
    """The weights w (HF names) as Marian names them: [in,out] matrices, [1,n] rows, no pad."""
    v = cfg["vocab_size"] - 1  # without <pad>
    a = collections.OrderedDict()
    a["Wemb"] = w["model.shared.weight"][:v].numpy()
    a["decoder_ff_logit_out_b"] = w["final_logits_bias"][:, :v].numpy()
    names = {"q_proj": "Wq", "k_proj": "Wk", "v_proj": "Wv", "out_proj": "Wo"}
    for side in ("encoder", "decoder"):
        for l in range(cfg[side + "_layers"]):
            hf, mar = f"model.{side}.layers.{l}", f"{side}_l{l + 1}"
            blocks = [("self_attn", "self")] + ([("encoder_attn", "context")] if side == "decoder" else [])
            for h, m in blocks:
                for p, wn in names.items():
                    a[f"{mar}_{m}_{wn}"] = w[f"{hf}.{h}.{p}.weight"].t().contiguous().numpy()
                    a[f"{mar}_{m}_b{wn[1]}"] = w[f"{hf}.{h}.{p}.bias"][None, :].numpy()
                a[f"{mar}_{m}_Wo_ln_scale"] = w[f"{hf}.{h}_layer_norm.weight"][None, :].numpy()
                a[f"{mar}_{m}_Wo_ln_bias"] = w[f"{hf}.{h}_layer_norm.bias"][None, :].numpy()
            a[f"{mar}_ffn_W1"] = w[f"{hf}.fc1.weight"].t().contiguous().numpy()
            a[f"{mar}_ffn_b1"] = w[f"{hf}.fc1.bias"][None, :].numpy()
            a[f"{mar}_ffn_W2"] = w[f"{hf}.fc2.weight"].t().contiguous().numpy()
            a[f"{mar}_ffn_b2"] = w[f"{hf}.fc2.bias"][None, :].numpy()
            a[f"{mar}_ffn_ffn_ln_scale"] = w[f"{hf}.final_layer_norm.weight"][None, :].numpy()
            a[f"{mar}_ffn_ffn_ln_bias"] = w[f"{hf}.final_layer_norm.bias"][None, :].numpy()
    return a


def write_marian_release(d, a, cfg, vocab, src_spm, tgt_spm):
    """A Marian release directory: the arrays with the options inside, vocab.yml, decoder.yml."""
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    v = cfg["vocab_size"] - 1
    options = f"""type: transformer
dim-vocabs:
  - {v}
  - {v}
dim-emb: {cfg["d_model"]}
enc-depth: {cfg["encoder_layers"]}
dec-depth: {cfg["decoder_layers"]}
enc-cell: gru
enc-cell-depth: 1
dec-cell: gru
dec-cell-base-depth: 2
dec-cell-high-depth: 1
skip: false
layer-normalization: false
right-left: false
input-types: []
tied-embeddings: false
tied-embeddings-src: false
tied-embeddings-all: true
transformer-heads: {cfg["encoder_attention_heads"]}
transformer-no-projection: false
transformer-dim-ffn: {cfg["encoder_ffn_dim"]}
transformer-ffn-depth: 2
transformer-ffn-activation: {cfg["activation_function"]}
transformer-dim-aan: 2048
transformer-aan-depth: 2
transformer-aan-activation: swish
transformer-aan-nogate: false
transformer-decoder-autoreg: self-attention
transformer-tied-layers: []
transformer-guided-alignment-layer: last
transformer-preprocess: ""
transformer-postprocess-emb: d
transformer-postprocess: dan
transformer-train-position-embeddings: false
ulr: false
ulr-dim-emb: 0
ulr-trainable-transformation: false
version: v1.7.6 02bada8 2019-03-04 16:07:49 -0800
"""
    a = collections.OrderedDict(a)
    a["special:model.yml"] = np.frombuffer(options.encode() + b"\0", dtype=np.int8)
    stem = "opus.spm32k-spm32k.transformer-align.model1.npz.best-perplexity"
    np.savez(os.path.join(d, stem + ".npz"), **a)
    vocab_yml = {p: i for p, i in sorted(vocab.items(), key=lambda kv: kv[1]) if p != "<pad>"}
    with open(os.path.join(d, "opus.spm32k-spm32k.vocab.yml"), "w", encoding="utf-8") as f:
        yaml.safe_dump(vocab_yml, f, allow_unicode=True, sort_keys=False)
    with open(os.path.join(d, "decoder.yml"), "w") as f:
        f.write(f"models:\n  - {stem}.npz\nvocabs:\n  - opus.spm32k-spm32k.vocab.yml\n  - opus.spm32k-spm32k.vocab.yml\n"
                "beam-size: 6\nnormalize: 0.6\nword-penalty: 0\nmini-batch: 1\nmaxi-batch: 1\nmaxi-batch-sort: src\n"
                "relative-paths: true\n")
    shutil.copy(src_spm, d)
    shutil.copy(tgt_spm, d)


def main():
    os.makedirs(os.path.join(OUT, "opus_spm"), exist_ok=True)
    src_spm, tgt_spm = (os.path.join(OUT, "opus_spm", n) for n in ("source.spm", "target.spm"))
    train_spm(SRC_WORDS, 1, src_spm)
    train_spm(TGT_WORDS, 2, tgt_spm)
    src_sp, tgt_sp = spm.SentencePieceProcessor(model_file=src_spm), spm.SentencePieceProcessor(model_file=tgt_spm)
    both = pieces_of(src_spm) + pieces_of(tgt_spm)
    rng = random.Random(3)
    gen = torch.Generator().manual_seed(2020)

    # opus_base: eos 0, <unk> 1, pad last
    v = 96
    vocab = make_vocab(both, v - 1, rng, {"</s>": 0, "<unk>": 1})
    vocab["<pad>"] = v - 1
    cfg = base_config(v, v - 1, 0)
    w = weights(cfg, gen, 0.0)
    tune_eos(cfg, w, vocab, src_sp, 1e-5)
    d = write_dir("base", cfg, {"vocab.json": vocab, "tokenizer_config.json": {"source_lang": "de", "target_lang": "en"}})
    torch.save(hf_state(w, cfg), os.path.join(d, "pytorch_model.bin"), _use_new_zipfile_serialization=False)
    run_reference("base", cfg, w, vocab, vocab, src_sp, tgt_sp, 1e-5, gen)
    write_marian_release(os.path.join(OUT, "marian_release"), marian_release_arrays(cfg, w), cfg, vocab, src_spm, tgt_spm)
    run_reference("marian", cfg, w, vocab, vocab, src_sp, tgt_sp, 1e-6, gen)

    # opus_tcbig: relu, eos mid-vocabulary, codes, F16 safetensors, generation_config.json
    v = 112
    special = {"</s>": 57, "<unk>": 3, "<s>": 90, ">>fra<<": 10, ">>por<<": 11, ">>ita<<": 12}
    vocab = make_vocab(both, v - 1, rng, special)
    vocab["<pad>"] = v - 1
    cfg = base_config(v, v - 1, 57, activation_function="relu", max_position_embeddings=1024, torch_dtype="float16",
                      share_encoder_decoder_embeddings=True, decoder_vocab_size=v, forced_eos_token_id=57)
    for k in ("bad_words_ids", "num_beams", "max_length", "extra_pos_embeddings"):
        cfg.pop(k)
    w = weights(cfg, gen, 0.0)
    w = {k: t.half().float() for k, t in w.items()}
    tune_eos(cfg, w, vocab, src_sp, 1e-5)
    w["final_logits_bias"] = w["final_logits_bias"].half().float()  # what the F16 file holds
    gen_cfg = {"bad_words_ids": [[v - 1]], "bos_token_id": 0, "decoder_start_token_id": v - 1, "eos_token_id": 57,
               "forced_eos_token_id": 57, "max_length": 512, "num_beams": 4, "pad_token_id": v - 1,
               "renormalize_logits": True, "transformers_version": "4.34.0.dev0"}
    d = write_dir("tcbig", cfg, {"vocab.json": vocab, "generation_config.json": gen_cfg})
    save_safetensors(os.path.join(d, "model.safetensors"), {k: t.half().numpy() for k, t in w.items()})
    run_reference("tcbig", cfg, w, vocab, vocab, src_sp, tgt_sp, 1e-5, gen)

    # opus_separate: two vocabularies of one size, zip-format pytorch_model.bin
    v = 80
    src_vocab = make_vocab(pieces_of(src_spm), v - 1, rng, {"</s>": 0, "<unk>": 1}, missing=2)
    tgt_vocab = make_vocab(pieces_of(tgt_spm), v - 1, rng, {"</s>": 0, "<unk>": 1}, missing=2)
    src_vocab["<pad>"] = tgt_vocab["<pad>"] = v - 1
    cfg = base_config(v, v - 1, 0, share_encoder_decoder_embeddings=False, decoder_vocab_size=v)
    w = weights(cfg, gen, 0.0)
    tune_eos(cfg, w, src_vocab, src_sp, 1e-5)
    d = write_dir("separate", cfg, {"vocab.json": src_vocab, "target_vocab.json": tgt_vocab,
                                    "tokenizer_config.json": {"separate_vocabs": True}})
    torch.save(hf_state(w, cfg), os.path.join(d, "pytorch_model.bin"))
    run_reference("separate", cfg, w, src_vocab, tgt_vocab, src_sp, tgt_sp, 1e-5, gen)


if __name__ == "__main__":
    main()
