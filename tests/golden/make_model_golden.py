#!/usr/bin/python3
"""Golden fixtures for the whole encoder-decoder, computed with PyTorch (python3-torch 1.13).

Run from the repository root:  /usr/bin/python3 tests/golden/make_model_golden.py
For each variant <name> it writes tests/golden/data/model_<name>/ with config.json and
model.safetensors (HF MarianMT tensor names), and model_<name>_io.npy, a stream of:
  src ids [B,S] (int64, padded with pad), src lengths [B], tgt ids [B,T] (decoder inputs,
  starting with the decoder start id), encoder memory [B,S,D], decoder logits [B,T,V],
  greedy ids [B,L] (padded with -1), greedy max length [1]
The reference forward below is written from the paper and HF Marian's semantics with torch
ops (F.multi_head_attention_forward for attention), independently of tfm's code.
"""
import json
import math
import os

import numpy as np
import torch
import torch.nn.functional as F

from make_golden import save_safetensors, save_stream, OUT


def sinusoid(n, d, layout):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    i = torch.arange((d + 1) // 2, dtype=torch.float64)
    ang = pos / 10000 ** (2 * i / d)
    s, c = torch.sin(ang), torch.cos(ang)[:, : d // 2]
    if layout == "halves":
        return torch.cat([s, c], 1).float()
    out = torch.zeros(n, d, dtype=torch.float64)
    out[:, 0::2], out[:, 1::2] = s, c
    return out.float()


def fairseq_sinusoid(n, d, padding_idx):
    """HF M2M100SinusoidalPositionalEmbedding.get_embedding (fairseq's): float32 step by step,
    sines of the first half, cosines of the second, the padding row zero."""
    half = d // 2
    step = math.log(10000) / (half - 1)
    freq = torch.exp(torch.arange(half, dtype=torch.int64).float() * -step)
    ang = torch.arange(n, dtype=torch.int64).float().unsqueeze(1) * freq.unsqueeze(0)
    emb = torch.cat([torch.sin(ang), torch.cos(ang)], dim=1).view(n, -1)
    if d % 2 == 1:
        emb = torch.cat([emb, torch.zeros(n, 1)], dim=1)
    emb[padding_idx, :] = 0
    return emb


def fairseq_positions(ids, padding_idx):
    """HF create_position_ids_from_input_ids: tokens that are not padding counted from
    padding_idx + 1, padding at padding_idx, whichever side the padding is on."""
    mask = ids.ne(padding_idx).int()
    return torch.cumsum(mask, dim=1).type_as(mask) * mask + padding_idx


class Reference:
    def __init__(self, cfg, w):
        self.c, self.w = cfg, w
        self.act = {"relu": F.relu, "gelu": F.gelu, "swish": F.silu}[cfg["activation_function"]]
        # M2M100 (NLLB-200): pre-norm with final LayerNorms, nn.LayerNorm's eps, fairseq's
        # positions counted over the tokens that are not padding (the table is not in the file).
        self.m2m = cfg["model_type"] == "m2m_100"
        self.pre = self.m2m or cfg["tfm_norm_placement"] == "pre"
        self.eps = 1e-5 if self.m2m else cfg["tfm_layer_norm_eps"]
        d = cfg["d_model"]
        kind = "m2m" if self.m2m else cfg["tfm_position_encoding"]
        p = cfg["max_position_embeddings"]
        if kind == "m2m":
            self.table = fairseq_sinusoid(p + 2, d, cfg["pad_token_id"])
        elif kind == "learned":
            self.enc_pos = w["model.encoder.embed_positions.weight"]
            self.dec_pos = w["model.decoder.embed_positions.weight"]
        else:
            self.enc_pos = self.dec_pos = sinusoid(p, d, "halves" if kind == "sinusoidal_halves" else "interleaved")
        self.scale = math.sqrt(d) if cfg["scale_embedding"] else 1.0
        self.kept = None  # a list: every attention's per-head weights [B,H,Tq,Tk] are appended

    def ln(self, x, name):
        return F.layer_norm(x, x.shape[-1:], self.w[name + ".weight"], self.w[name + ".bias"], self.eps)

    def attn(self, q, kv, name, heads, kpm=None, causal=False):
        w = self.w
        tq, tk = q.shape[1], kv.shape[1]
        mask = None
        if causal:
            mask = torch.triu(torch.ones(tq, tk, dtype=torch.bool), 1)
        out, weights = F.multi_head_attention_forward(
            q.transpose(0, 1), kv.transpose(0, 1), kv.transpose(0, 1), q.shape[-1], heads, None,
            torch.cat([w[name + ".q_proj.bias"], w[name + ".k_proj.bias"], w[name + ".v_proj.bias"]]),
            None, None, False, 0.0, w[name + ".out_proj.weight"], w[name + ".out_proj.bias"], training=False,
            key_padding_mask=kpm, need_weights=self.kept is not None, attn_mask=mask, use_separate_proj_weight=True,
            q_proj_weight=w[name + ".q_proj.weight"], k_proj_weight=w[name + ".k_proj.weight"],
            v_proj_weight=w[name + ".v_proj.weight"], average_attn_weights=False)
        if self.kept is not None:
            self.kept.append((name, weights))
        return out.transpose(0, 1)

    def ffn(self, x, name):
        h = self.act(F.linear(x, self.w[name + ".fc1.weight"], self.w[name + ".fc1.bias"]))
        return F.linear(h, self.w[name + ".fc2.weight"], self.w[name + ".fc2.bias"])

    def sub(self, x, ln_name, f):
        if self.pre:
            return x + f(self.ln(x, ln_name))
        return self.ln(x + f(x), ln_name)

    def positions(self, ids, side):
        if self.m2m:
            return self.table[fairseq_positions(ids, self.c["pad_token_id"]).long()]
        return (self.enc_pos if side == "encoder" else self.dec_pos)[: ids.shape[1]]

    def encode(self, src, lengths):
        s = src.shape[1]
        return self.encode_masked(src, torch.arange(s)[None, :] >= torch.tensor(lengths)[:, None])

    def encode_masked(self, src, kpm):
        c, w = self.c, self.w
        x = w.get("model.encoder.embed_tokens.weight", w.get("model.shared.weight"))[src] * self.scale + \
            self.positions(src, "encoder")
        for l in range(c["encoder_layers"]):
            p = f"model.encoder.layers.{l}"
            x = self.sub(x, p + ".self_attn_layer_norm",
                         lambda h: self.attn(h, h, p + ".self_attn", c["encoder_attention_heads"], kpm))
            x = self.sub(x, p + ".final_layer_norm", lambda h: self.ffn(h, p))
        if self.pre:
            x = self.ln(x, "model.encoder.layer_norm")
        return x

    def decode(self, tgt, memory, lengths):
        c, w = self.c, self.w
        t = tgt.shape[1]
        emb = w.get("model.decoder.embed_tokens.weight", w.get("model.shared.weight"))
        x = emb[tgt] * self.scale + self.positions(tgt, "decoder")
        kpm = torch.arange(memory.shape[1])[None, :] >= torch.tensor(lengths)[:, None]
        for l in range(c["decoder_layers"]):
            p = f"model.decoder.layers.{l}"
            x = self.sub(x, p + ".self_attn_layer_norm",
                         lambda h: self.attn(h, h, p + ".self_attn", c["decoder_attention_heads"], causal=True))
            x = self.sub(x, p + ".encoder_attn_layer_norm",
                         lambda h: self.attn(h, memory, p + ".encoder_attn", c["decoder_attention_heads"], kpm))
            x = self.sub(x, p + ".final_layer_norm", lambda h: self.ffn(h, p))
        if self.pre:
            x = self.ln(x, "model.decoder.layer_norm")
        out_w = w["lm_head.weight"] if "lm_head.weight" in w else emb
        return F.linear(x, out_w) + (w["final_logits_bias"][0] if "final_logits_bias" in w else 0)

    def greedy(self, memory, lengths, max_len, forced_bos=None):
        """Full recomputation each step; pad never generated; stops at eos or max_len. With
        forced_bos, HF's ForcedBOSTokenLogitsProcessor: the first token is that one."""
        c = self.c
        out = []
        for b in range(memory.shape[0]):
            ids = [c["decoder_start_token_id"]]
            for _ in range(max_len):
                logits = self.decode(torch.tensor([ids]), memory[b:b + 1], [lengths[b]])[0, -1]
                logits[c["pad_token_id"]] = -float("inf")
                if forced_bos is not None and len(ids) == 1:
                    logits[:] = -float("inf")
                    logits[forced_bos] = 0
                nxt = int(torch.argmax(logits))
                if nxt == c["eos_token_id"]:
                    break
                ids.append(nxt)
            out.append(ids[1:])
        return out


def make_weights(cfg, gen):
    d, v, p = cfg["d_model"], cfg["vocab_size"], cfg["max_position_embeddings"]
    vt = cfg.get("decoder_vocab_size", v)
    w = {}
    rnd = lambda *shape, s=1.0: torch.randn(*shape, generator=gen) * s
    if cfg.get("share_encoder_decoder_embeddings", True):
        tables = {"model.shared.weight": v}
    else:  # separate vocabularies: HF Marian's names
        tables = {"model.encoder.embed_tokens.weight": v, "model.decoder.embed_tokens.weight": vt}
    for name, rows in tables.items():
        w[name] = rnd(rows, d, s=d ** -0.5)
        w[name][cfg["pad_token_id"]] = 0
    if not cfg["tie_word_embeddings"]:
        w["lm_head.weight"] = rnd(vt, d, s=d ** -0.5)
    m2m = cfg["model_type"] == "m2m_100"
    if not m2m:  # M2M100 has no final_logits_bias
        w["final_logits_bias"] = rnd(1, vt, s=0.1)
    if cfg.get("tfm_position_encoding") == "learned":
        w["model.encoder.embed_positions.weight"] = rnd(p, d, s=0.3)
        w["model.decoder.embed_positions.weight"] = rnd(p, d, s=0.3)

    def lin(name, o, i):
        w[name + ".weight"] = rnd(o, i, s=i ** -0.5)
        w[name + ".bias"] = rnd(o, s=0.1)

    def norm(name):
        w[name + ".weight"] = 1 + rnd(d, s=0.1)
        w[name + ".bias"] = rnd(d, s=0.1)

    def attn(name):
        for x in ("q_proj", "k_proj", "v_proj", "out_proj"):
            lin(f"{name}.{x}", d, d)

    for side in ("encoder", "decoder"):
        for l in range(cfg[side + "_layers"]):
            p_ = f"model.{side}.layers.{l}"
            attn(p_ + ".self_attn")
            norm(p_ + ".self_attn_layer_norm")
            if side == "decoder":
                attn(p_ + ".encoder_attn")
                norm(p_ + ".encoder_attn_layer_norm")
            lin(p_ + ".fc1", cfg[side + "_ffn_dim"], d)
            lin(p_ + ".fc2", d, cfg[side + "_ffn_dim"])
            norm(p_ + ".final_layer_norm")
        if m2m or cfg["tfm_norm_placement"] == "pre":
            norm(f"model.{side}.layer_norm")
    return w


def variant(name, gen, **overrides):
    cfg = {
        "model_type": "marian", "d_model": 16, "encoder_layers": 2, "decoder_layers": 2,
        "encoder_attention_heads": 4, "decoder_attention_heads": 4, "encoder_ffn_dim": 32,
        "decoder_ffn_dim": 32, "vocab_size": 40, "max_position_embeddings": 64,
        "activation_function": "relu", "scale_embedding": True, "tie_word_embeddings": True,
        "pad_token_id": 0, "eos_token_id": 1, "decoder_start_token_id": 0,
        "tfm_position_encoding": "sinusoidal_interleaved", "tfm_norm_placement": "post",
        "tfm_layer_norm_eps": 1e-5,
    }
    cfg.update(overrides)
    if cfg["model_type"] == "m2m_100":  # HF's M2M100Config keys only
        cfg = {k: v for k, v in cfg.items() if not k.startswith("tfm_")}
    w = make_weights(cfg, gen)
    ref = Reference(cfg, w)
    lengths = [7, 4, 1]
    s = max(lengths)
    src = torch.full((len(lengths), s), cfg["pad_token_id"], dtype=torch.long)
    for b, n in enumerate(lengths):
        src[b, : n - 1] = torch.randint(3, cfg["vocab_size"], (n - 1,), generator=gen)
        src[b, n - 1] = cfg["eos_token_id"]
    tgt = torch.randint(3, cfg.get("decoder_vocab_size", cfg["vocab_size"]), (len(lengths), 6), generator=gen)
    tgt[:, 0] = cfg["decoder_start_token_id"]
    with torch.no_grad():
        memory = ref.encode(src, lengths)
        if ref.m2m:  # positions count tokens, not places: left padding gives the same vectors
            left = torch.full_like(src, cfg["pad_token_id"])
            for b, n in enumerate(lengths):
                left[b, s - n:] = src[b, :n]
            kpm = left.eq(cfg["pad_token_id"])
            lm = ref.encode_masked(left, kpm)
            for b, n in enumerate(lengths):
                assert torch.allclose(lm[b, s - n:], memory[b, :n], atol=1e-5), "left padding moved positions"
        logits = ref.decode(tgt, memory, lengths)
        max_len = 12
        greedy = ref.greedy(memory, lengths, max_len)
    g = np.full((len(lengths), max_len), -1, dtype=np.int64)
    for b, ids in enumerate(greedy):
        g[b, : len(ids)] = ids
    d = os.path.join(OUT, f"model_{name}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    save_safetensors(os.path.join(d, "model.safetensors"), {k: v.numpy() for k, v in w.items()})
    if ref.m2m:  # the target language's code forced first (generation_config.json's forced_bos_token_id)
        forced = 5
        with torch.no_grad():
            fg = ref.greedy(memory, lengths, max_len, forced_bos=forced)
        f = np.full((len(lengths), max_len), -1, dtype=np.int64)
        for b, ids in enumerate(fg):
            f[b, : len(ids)] = ids
        with open(os.path.join(d, "generation_config.json"), "w") as fh:
            json.dump({"decoder_start_token_id": 2, "eos_token_id": 2, "pad_token_id": 1, "forced_bos_token_id": forced,
                       "max_length": max_len + 1}, fh, indent=2)
        save_stream(os.path.join(OUT, f"model_{name}_forced.npy"), [f])
    save_stream(os.path.join(OUT, f"model_{name}_io.npy"),
                [src.numpy().astype(np.int64), np.array(lengths, dtype=np.int64), tgt.numpy().astype(np.int64),
                 memory.numpy(), logits.numpy(), g, np.array([max_len], dtype=np.int64)])


def main():
    gen = torch.Generator().manual_seed(1129)
    variant("post_relu_interleaved", gen)
    variant("pre_swish_halves", gen, activation_function="swish", tfm_norm_placement="pre",
            tfm_position_encoding="sinusoidal_halves")
    variant("post_gelu_learned_untied", gen, activation_function="gelu", tfm_position_encoding="learned",
            tie_word_embeddings=False, scale_embedding=False, tfm_layer_norm_eps=1e-6)
    variant("post_relu_separate_vocab", gen, share_encoder_decoder_embeddings=False, decoder_vocab_size=29)
    # M2M100 / NLLB-200's layout and ids (<s> 0, <pad> 1, </s> 2 = decoder start), odd head size.
    variant("m2m_100", gen, model_type="m2m_100", d_model=20, encoder_attention_heads=4, decoder_attention_heads=2,
            pad_token_id=1, eos_token_id=2, decoder_start_token_id=2, bos_token_id=0)


if __name__ == "__main__":
    main()
