#!/usr/bin/python3
"""NLLB-200 and M2M100 directories as transformers publishes them, small and random, with what
transformers would give for them: tokenizer ids, greedy and beam outputs, texts.

Run from the repository root:  /usr/bin/python3 tests/golden/make_m2m_golden.py
(needs python3-torch, python3-sentencepiece). Writes into tests/golden/data/:
  m2m_nllb/      an NLLB-200-shaped directory: config.json (model_type m2m_100,
                 tokenizer_class NllbTokenizer), generation_config.json (no early_stopping:
                 transformers' default, False), sentencepiece.bpe.model (a BPE model with
                 SentencePiece's <unk> 0 <s> 1 </s> 2, like NLLB's), tokenizer_config.json
                 with added_tokens_decoder (language codes after the pieces, not in sorted
                 order, then <mask>), special_tokens_map.json, weights in pytorch_model.bin
                 (zip format) with embed_tokens and lm_head aliasing model.shared and the
                 obsolete embed_positions.weights buffers of the old uploads
  m2m_nllb_legacy/  the same model; its tokenizer only has special_tokens_map.json's list of
                 codes (transformers' older numbering) and legacy_behaviour true (a source is
                 pieces </s> [lang]), src_lang deu_Latn
  m2m_m2m100/    an M2M100-shaped directory: vocab.json (fairseq's dictionary: <s> <pad> </s>
                 <unk>, the pieces shuffled, some missing), the 100 __xx__ codes of language_codes
                 m2m100 after its entries, 8 made-up words, generation_config.json with
                 early_stopping true and num_beams 5, weights in model.safetensors
  m2m_nllb_sharded/, m2m_m2m100_sharded/  the same models with their weights in two shards and
                 an index (pytorch_model.bin.index.json; model.safetensors.index.json)
  m2m_<name>_decode.tsv  target ids with special tokens among them, and their text
  m2m_<name>_lines.tsv  one row per case: directory, source language, target language, the
                 line, its source ids, greedy output ids (the target language's token forced
                 first), their text, beam-4 output ids, the beam's score, its text
The tokenizers are NllbTokenizer's and M2M100Tokenizer's rules (transformers'
models/nllb/tokenization_nllb.py, models/m2m_100/tokenization_m2m_100.py) written here with
sentencepiece; the model is make_model_golden.py's reference (M2M100's layout); beam search
is transformers' BeamSearchScorer / BeamHypotheses (generation/beam_search.py): 2*beams
candidates a step, eos candidates ranked below the beam size skipped, at most `beams`
finished kept, done by early_stopping (true: beams finished; false: the best candidate's score
at the current length cannot beat the worst finished), live beams added at max_length, scores
sum(logprob) / length^length_penalty with eos counted. The pad row of the embedding is set so
that pad's logit is about -30 at every step, and eos's gets a constant bias: transformers
never blocks pad on these models while tfm never generates it, so the fixture keeps pad out of
play to compare both exactly.
"""
import io
import json
import os
import random
import shutil

import sentencepiece as spm
import torch
import torch.nn.functional as F

from make_golden import OUT, save_safetensors
from make_model_golden import Reference, make_weights

WORDS = "der die das Haus Hund Katze rennt schnell am See Berg Stadt ein eine klein groß rot blau sieht " \
        "läuft spielt Kind Mann Frau Ball Wasser the a house dog cat runs fast by lake small big red " \
        "child man woman ball water don't it's".split()
PUNCT = [",", ".", "?", "!"]

NLLB_CODES = ["eng_Latn", "deu_Latn", "fra_Latn", "zho_Hans", "ace_Arab"]  # the order fixes the ids
M2M100_CODES = ["af", "am", "ar", "ast", "az", "ba", "be", "bg", "bn", "br", "bs", "ca", "ceb", "cs", "cy", "da",
                "de", "el", "en", "es", "et", "fa", "ff", "fi", "fr", "fy", "ga", "gd", "gl", "gu", "ha", "he",
                "hi", "hr", "ht", "hu", "hy", "id", "ig", "ilo", "is", "it", "ja", "jv", "ka", "kk", "km", "kn",
                "ko", "lb", "lg", "ln", "lo", "lt", "lv", "mg", "mk", "ml", "mn", "mr", "ms", "my", "ne", "nl",
                "no", "ns", "oc", "or", "pa", "pl", "ps", "pt", "ro", "ru", "sd", "si", "sk", "sl", "so", "sq",
                "sr", "ss", "su", "sv", "sw", "ta", "th", "tl", "tn", "tr", "uk", "ur", "uz", "vi", "wo", "xh",
                "yi", "yo", "zh", "zu"]

CASES = [  # line, source language, target language (None: the directory's default)
    ("ein Hund rennt am See .", "deu_Latn", "eng_Latn"),
    ("die Katze , das Haus und der Ball", "deu_Latn", "fra_Latn"),
    ("the dog runs fast !", None, "deu_Latn"),
    ("ein Kind spielt", "deu_Latn", "zho_Hans"),
    ("Ωmega the Zebra", "eng_Latn", "ace_Arab"),
    ("it's a small red house ?", "eng_Latn", "deu_Latn"),
    ("", "deu_Latn", "eng_Latn"),
]
EXTRA = [  # decoding only matters for these: transformers' clean-up of spaces
    ("der Hund , die Katze . it's don't ! Wasser ?", "deu_Latn", "eng_Latn"),
]
M2M100_LANG = {"deu_Latn": "de", "eng_Latn": "en", "fra_Latn": "fr", "zho_Hans": "zh", "ace_Arab": "ar"}
BEAMS, MAX_LENGTH = 4, 24
STRENGTH = 1.5


def train_spm(path):
    rng = random.Random(7)
    sents = []
    for _ in range(600):
        words = [rng.choice(WORDS) for _ in range(rng.randint(3, 9))]
        if rng.random() < 0.5:
            words.insert(rng.randint(1, len(words)), rng.choice(PUNCT))
        sents.append(" ".join(words))
    buf = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(sents), model_writer=buf, vocab_size=90, model_type="bpe",
                                   character_coverage=1.0, num_threads=1, shuffle_input_sentence=False,
                                   normalization_rule_name="identity")
    with open(path, "wb") as f:
        f.write(buf.getvalue())


class Nllb:
    """NllbTokenizer: ids are SentencePiece's + 1 (its <unk>, 0, is <unk> 3), <s> 0 <pad> 1 </s> 2 <unk> 3."""

    def __init__(self, sp, lang_ids, mask, legacy):
        self.sp, self.lang_ids, self.mask, self.legacy = sp, lang_ids, mask, legacy

    def forced(self, lang):
        return self.lang_ids[lang]

    def encode(self, text, lang):
        ids = []
        for piece in self.sp.encode(text, out_type=str):
            i = self.sp.piece_to_id(piece)
            ids.append(i + 1 if i else 3)
        if not ids:
            return [2]  # tfm's empty source: eos alone (transformers would keep the language token)
        lid = self.lang_ids[lang]
        return ids + [2, lid] if self.legacy else [lid] + ids + [2]

    def decode(self, ids):
        special = {0, 1, 2, 3, self.mask} | set(self.lang_ids.values())
        tokens = [self.sp.id_to_piece(i - 1) for i in ids if i not in special]
        return clean_up("".join(tokens).replace("\u2581", " ").strip())


class M2M100:
    """M2M100Tokenizer: pieces through vocab.json (missing: <unk>), __xx__ tokens after its entries."""

    def __init__(self, sp, vocab):
        self.sp, self.vocab = sp, vocab
        self.lang_ids = {f"__{c}__": len(vocab) + i for i, c in enumerate(M2M100_CODES)}
        self.decoder = {i: p for p, i in vocab.items()}

    def forced(self, lang):
        return self.lang_ids[f"__{lang}__"]

    def encode(self, text, lang):
        ids = [self.lang_ids.get(p, self.vocab.get(p, self.vocab["<unk>"])) for p in self.sp.encode(text, out_type=str)]
        return [self.lang_ids[f"__{lang}__"]] + ids + [2] if ids else [2]

    def decode(self, ids):
        special = {0, 1, 2, 3} | set(self.lang_ids.values())
        tokens = [self.decoder[i] for i in ids if i not in special and i in self.decoder]
        return clean_up(self.sp.decode(tokens))


def clean_up(s):
    """transformers' clean_up_tokenization."""
    for a, b in [(" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"), (" 'm", "'m"),
                 (" 's", "'s"), (" 've", "'ve"), (" 're", "'re")]:
        s = s.replace(a, b)
    return s


def config(v):
    return {
        "_name_or_path": "tests/golden", "activation_dropout": 0.0, "activation_function": "relu",
        "architectures": ["M2M100ForConditionalGeneration"], "attention_dropout": 0.1, "bos_token_id": 0,
        "d_model": 16, "decoder_attention_heads": 4, "decoder_ffn_dim": 32, "decoder_layerdrop": 0,
        "decoder_layers": 2, "decoder_start_token_id": 2, "dropout": 0.1, "encoder_attention_heads": 4,
        "encoder_ffn_dim": 32, "encoder_layerdrop": 0, "encoder_layers": 2, "eos_token_id": 2, "init_std": 0.02,
        "is_encoder_decoder": True, "max_length": 200, "max_position_embeddings": 64, "model_type": "m2m_100",
        "num_hidden_layers": 2, "pad_token_id": 1, "scale_embedding": True, "tie_word_embeddings": True,
        "torch_dtype": "float32", "transformers_version": "4.21.0.dev0", "use_cache": True, "vocab_size": v,
    }


def constant_logits(w, pad_logit, eos_bias):
    """The output logit of a row e of the tied embedding is x.e with x = g*n + b the final
    LayerNorm's output (n: zero mean). With e = c/g (elementwise), x.e = c*sum(b/g) whatever
    the input: pad's row gets pad_logit, eos's row gets eos_bias added."""
    g, b = w["model.decoder.layer_norm.weight"], w["model.decoder.layer_norm.bias"]
    s = float((b / g).sum())
    assert abs(s) > 0.05
    e = w["model.shared.weight"]
    e[1] = (pad_logit / s) / g
    e[2] = e[2] + (eos_bias / s) / g


def strengthen(w, factor):
    """Sublayer outputs scaled up: with tied embeddings, a tiny random pre-norm model's residual
    stream is mostly the input token's embedding, so it repeats its input token forever."""
    for k in w:
        if k.endswith(("fc2.weight", "out_proj.weight")):
            w[k] *= factor


def tune_eos(cfg, w, tok, lang_id, default_source):
    """The constant eos bias (of a few tried) under which most greedy outputs end after 2 to 16
    tokens and most beam outputs differ between early_stopping true and false: outputs that
    exercise eos, finished hypotheses and the stopping rule."""
    base = w["model.shared.weight"][2].clone()
    best, best_score = 0.0, -1
    for bias in [0.5 * k for k in range(9)]:
        w["model.shared.weight"][2] = base
        constant_logits(w, -30.0, bias)
        ref = Reference(cfg, w)
        score = 0
        with torch.no_grad():
            for line, given, tgt in CASES:
                ids = tok.encode(line, lang_id(given or default_source))
                if ids == [2]:
                    continue
                forced = tok.forced(lang_id(tgt))
                memory = ref.encode(torch.tensor([ids]), [len(ids)])
                out = ref.greedy(memory, [len(ids)], 17, forced_bos=forced)[0]
                score += 2 <= len(out) <= 16
                score += 2 * (hf_beam(ref, memory, len(ids), forced, True)[1] !=
                              hf_beam(ref, memory, len(ids), forced, False)[1])
        if score > best_score:
            best, best_score = bias, score
    w["model.shared.weight"][2] = base
    constant_logits(w, -30.0, best)
    return Reference(cfg, w)


def hf_beam(ref, memory, n, forced, early_stopping, length_penalty=1.0):
    """transformers' beam search for one sentence (num_beams BEAMS, max_length MAX_LENGTH)."""
    start, eos = 2, 2
    beams = [[start] for _ in range(BEAMS)]
    scores = torch.tensor([0.0] + [-1e9] * (BEAMS - 1))
    hyps = []  # (score, tokens without the start token and eos)
    done = False
    for cur_len in range(1, MAX_LENGTH):
        logits = ref.decode(torch.tensor(beams), memory.expand(BEAMS, -1, -1), [n] * BEAMS)[:, -1]
        lp = F.log_softmax(logits, dim=-1)
        if cur_len == 1 and forced is not None:  # ForcedBOSTokenLogitsProcessor
            lp[:] = -float("inf")
            lp[:, forced] = 0
        total = (lp + scores[:, None]).view(-1)
        top, idx = torch.topk(total, 2 * BEAMS)
        nxt_beams, nxt_scores = [], []
        for rank, (s, i) in enumerate(zip(top.tolist(), idx.tolist())):
            b, tok = divmod(i, lp.shape[1])
            if tok == eos:
                if rank >= BEAMS:
                    continue
                toks = beams[b][1:]
                add(hyps, s / ((len(toks) + 1) ** length_penalty), toks)
            else:
                nxt_beams.append(beams[b] + [tok])
                nxt_scores.append(s)
            if len(nxt_beams) == BEAMS:
                break
        if len(hyps) >= BEAMS:
            if early_stopping:
                done = True
            else:
                best = float(top.max())
                done = min(h[0] for h in hyps) >= best / ((cur_len) ** length_penalty)
        beams, scores = nxt_beams, torch.tensor(nxt_scores)
        if done:
            break
    if not done:  # max_length: the live beams join the finished
        for b in range(BEAMS):
            toks = beams[b][1:]
            add(hyps, float(scores[b]) / (len(toks) ** length_penalty), toks)
    return max(hyps, key=lambda h: h[0])


def add(hyps, score, toks):
    """BeamHypotheses.add: at most BEAMS kept, the worst dropped."""
    if len(hyps) < BEAMS or score > min(h[0] for h in hyps):
        hyps.append((score, toks))
        if len(hyps) > BEAMS:
            hyps.remove(min(hyps, key=lambda h: h[0]))


def run(name, ref, tok, lang_id, early_stopping, default_source):
    rows, decoded, differs = [], [], 0
    with torch.no_grad():
        for line, given, tgt in CASES + EXTRA:
            src = given or default_source
            ids = tok.encode(line, lang_id(src))
            forced = tok.forced(lang_id(tgt))
            greedy, beam, score = [], [], 0.0
            if ids != [2]:
                memory = ref.encode(torch.tensor([ids]), [len(ids)])
                greedy = ref.greedy(memory, [len(ids)], MAX_LENGTH - 1, forced_bos=forced)[0]
                score, beam = hf_beam(ref, memory, len(ids), forced, early_stopping)
                other = hf_beam(ref, memory, len(ids), forced, not early_stopping)[1]
                differs += other != beam
            # decoding: the line's target ids with specials among them (bos, unk, the language)
            target = tok.encode(line, lang_id(tgt))
            mixed = [0] + target[:2] + [3] + target[2:] + [1]
            decoded.append(" ".join(map(str, mixed)) + "\t" + tok.decode(mixed))
            rows.append("\t".join([name, lang_id(given) if given else "", lang_id(tgt), line, " ".join(map(str, ids)), " ".join(map(str, greedy)),
                                   tok.decode(greedy), " ".join(map(str, beam)), f"{score:.6f}", tok.decode(beam)]))
    with open(os.path.join(OUT, f"m2m_{name}_lines.tsv"), "w", encoding="utf-8") as f:
        f.write("\n".join(rows) + "\n")
    print(f"{name}: early_stopping {not early_stopping} would change {differs} of {len(rows)} beam outputs")
    with open(os.path.join(OUT, f"m2m_{name}_decode.tsv"), "w", encoding="utf-8") as f:
        f.write("\n".join(decoded) + "\n")


def fresh_dir(name):
    d = os.path.join(OUT, f"m2m_{name}")
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    return d


def write_json(d, fname, obj):
    with open(os.path.join(d, fname), "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=2, ensure_ascii=False)


def hf_state(w, cfg):
    sd = dict(w)
    sd["model.encoder.embed_tokens.weight"] = w["model.shared.weight"]
    sd["model.decoder.embed_tokens.weight"] = w["model.shared.weight"]
    sd["lm_head.weight"] = w["model.shared.weight"]
    for side in ("encoder", "decoder"):  # the old uploads' buffer (tfm computes the table)
        sd[f"model.{side}.embed_positions.weights"] = torch.zeros(cfg["max_position_embeddings"] + 2, cfg["d_model"])
    return sd


def write_shards(d, w, kind):
    """The weights in two shards and an index, as transformers saves a large model (tied
    tensors stored once, under model.shared.weight)."""
    names = sorted(w)
    parts = [names[: len(names) // 2], names[len(names) // 2:]]
    weight_map = {}
    for i, part in enumerate(parts):
        if kind == "torch":
            fname = f"pytorch_model-{i + 1:05d}-of-00002.bin"
            torch.save({k: w[k] for k in part}, os.path.join(d, fname))
        else:
            fname = f"model-{i + 1:05d}-of-00002.safetensors"
            save_safetensors(os.path.join(d, fname), {k: w[k].numpy() for k in part})
        weight_map.update({k: fname for k in part})
    total = sum(t.numel() * 4 for t in w.values())
    index = "pytorch_model.bin.index.json" if kind == "torch" else "model.safetensors.index.json"
    write_json(d, index, {"metadata": {"total_size": total}, "weight_map": weight_map})


def main():
    spm_path = os.path.join(OUT, "m2m_spm.model")
    train_spm(spm_path)
    sp = spm.SentencePieceProcessor(model_file=spm_path)
    gen = torch.Generator().manual_seed(200)

    # NLLB: pieces + 1, the codes, <mask>, two unused rows (as NLLB's 256206)
    first = sp.get_piece_size() + 1
    lang_ids = {c: first + i for i, c in enumerate(NLLB_CODES)}
    mask = first + len(NLLB_CODES)
    v = mask + 3
    cfg = config(v)
    cfg["tokenizer_class"] = "NllbTokenizer"
    w = make_weights(cfg, gen)
    strengthen(w, STRENGTH)
    ref = tune_eos(cfg, w, Nllb(sp, lang_ids, mask, False), lambda c: c, "eng_Latn")
    d = fresh_dir("nllb")
    write_json(d, "config.json", cfg)
    write_json(d, "generation_config.json", {"bos_token_id": 0, "decoder_start_token_id": 2, "eos_token_id": 2,
                                             "max_length": MAX_LENGTH, "pad_token_id": 1,
                                             "transformers_version": "4.27.0.dev0"})
    shutil.copy(spm_path, os.path.join(d, "sentencepiece.bpe.model"))
    special = {0: "<s>", 1: "<pad>", 2: "</s>", 3: "<unk>"}
    decoder = {str(i): {"content": t, "lstrip": False, "normalized": False, "rstrip": False, "single_word": False,
                        "special": True} for i, t in special.items()}
    for c, i in lang_ids.items():
        decoder[str(i)] = {"content": c, "lstrip": False, "normalized": False, "rstrip": False, "single_word": False,
                           "special": True}
    decoder[str(mask)] = {"content": "<mask>", "lstrip": True, "normalized": True, "rstrip": False,
                          "single_word": False, "special": True}
    write_json(d, "tokenizer_config.json", {
        "added_tokens_decoder": decoder, "additional_special_tokens": NLLB_CODES, "bos_token": "<s>",
        "clean_up_tokenization_spaces": True, "cls_token": "<s>", "eos_token": "</s>", "legacy_behaviour": False,
        "mask_token": "<mask>", "model_max_length": 1024, "pad_token": "<pad>", "sep_token": "</s>",
        "sp_model_kwargs": {}, "src_lang": None, "tgt_lang": None, "tokenizer_class": "NllbTokenizer",
        "unk_token": "<unk>"})
    write_json(d, "special_tokens_map.json", {"additional_special_tokens": NLLB_CODES, "bos_token": "<s>",
                                              "eos_token": "</s>", "mask_token": "<mask>", "pad_token": "<pad>",
                                              "unk_token": "<unk>"})
    torch.save(hf_state(w, cfg), os.path.join(d, "pytorch_model.bin"))
    run("nllb", ref, Nllb(sp, lang_ids, mask, False), lambda c: c, False, "eng_Latn")
    d3 = fresh_dir("nllb_sharded")  # the same model as the 1.3B and 3.3B uploads ship theirs
    for f in ("config.json", "generation_config.json", "sentencepiece.bpe.model", "tokenizer_config.json",
              "special_tokens_map.json"):
        shutil.copy(os.path.join(d, f), d3)
    write_shards(d3, w, "torch")

    # The same model, the older tokenizer files, legacy order, another default source
    d2 = fresh_dir("nllb_legacy")
    for f in ("config.json", "generation_config.json", "sentencepiece.bpe.model", "pytorch_model.bin"):
        shutil.copy(os.path.join(d, f), d2)
    write_json(d2, "tokenizer_config.json", {"legacy_behaviour": True, "src_lang": "deu_Latn",
                                             "tokenizer_class": "NllbTokenizer"})
    write_json(d2, "special_tokens_map.json", {"additional_special_tokens": NLLB_CODES, "bos_token": "<s>"})
    run("nllb_legacy", ref, Nllb(sp, lang_ids, mask, True), lambda c: c, False, "deu_Latn")

    # M2M100: vocab.json, __xx__ codes, made-up words
    rng = random.Random(11)
    pieces = [sp.id_to_piece(i) for i in range(3, sp.get_piece_size())]
    rng.shuffle(pieces)
    pieces = pieces[4:]  # missing from the dictionary: <unk>
    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
    for p in pieces:
        vocab[p] = len(vocab)
    v = len(vocab) + len(M2M100_CODES) + 8
    cfg = config(v)
    w = make_weights(cfg, gen)
    strengthen(w, STRENGTH)
    ref = tune_eos(cfg, w, M2M100(sp, vocab), lambda c: M2M100_LANG[c], "eng_Latn")
    d = fresh_dir("m2m100")
    write_json(d, "config.json", cfg)
    write_json(d, "generation_config.json", {"bos_token_id": 0, "decoder_start_token_id": 2, "early_stopping": True,
                                             "eos_token_id": 2, "max_length": MAX_LENGTH, "num_beams": 5,
                                             "pad_token_id": 1, "transformers_version": "4.27.0.dev0"})
    shutil.copy(spm_path, os.path.join(d, "sentencepiece.bpe.model"))
    write_json(d, "vocab.json", vocab)
    write_json(d, "tokenizer_config.json", {"language_codes": "m2m100", "num_madeup_words": 8, "src_lang": None,
                                            "tgt_lang": None, "tokenizer_class": "M2M100Tokenizer"})
    write_json(d, "special_tokens_map.json", {"additional_special_tokens": [f"__{c}__" for c in M2M100_CODES]})
    save_safetensors(os.path.join(d, "model.safetensors"), {k: t.numpy() for k, t in w.items()})
    run("m2m100", ref, M2M100(sp, vocab), lambda c: M2M100_LANG[c], True, "eng_Latn")
    d2 = fresh_dir("m2m100_sharded")
    for f in ("config.json", "generation_config.json", "sentencepiece.bpe.model", "vocab.json", "tokenizer_config.json",
              "special_tokens_map.json"):
        shutil.copy(os.path.join(d, f), d2)
    write_shards(d2, w, "safetensors")


if __name__ == "__main__":
    main()
