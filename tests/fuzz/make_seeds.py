#!/usr/bin/python3
"""Writes the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/).
Run from tests/fuzz:  /usr/bin/python3 make_seeds.py   (needs python3-numpy)"""
import glob
import io
import json
import os

import numpy as np


def npy(a):
    b = io.BytesIO()
    np.save(b, a)
    return b.getvalue()


def write(target, name, data):
    os.makedirs(f"corpus/{target}", exist_ok=True)
    with open(f"corpus/{target}/{name}", "wb") as f:
        f.write(data)


# .npy records without their 6-byte magic (the target puts it back).
write("npy_stream", "f4_2x3", npy(np.arange(6, dtype=np.float32).reshape(2, 3))[6:])
write("npy_stream", "i8_4", npy(np.array([1, 2, 3, 4], dtype=np.int64))[6:])
write("npy_stream", "f8_be", npy(np.array([[1.5, -2]], dtype=">f8"))[6:])
write("npy_stream", "fortran", npy(np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)))[6:])
write("npy_stream", "two_records", npy(np.ones((1, 2), np.float32))[6:] + npy(np.zeros((3,), np.int32)))
write("npy_stream", "scalar", npy(np.float32(3.0))[6:])
for name, text in {"matrix": b"1 2\n3 4\n", "shaped": b"# shape: 2 1 3\n1 2 3\n\n4 5 6\n",
                   "special": b"nan inf -inf\n1e-3 -0 7\n", "two": b"1\n\n2 3\n4 5\n",
                   "empty_shape": b"# shape: 0 4\n"}.items():
    write("text_stream", name, text)
for p in sorted(glob.glob("../golden/data/attn_*.safetensors"))[:3]:
    write("safetensors", os.path.basename(p), open(p, "rb").read())
hdr = json.dumps({"h": {"dtype": "F16", "shape": [2], "data_offsets": [0, 4]}, "__metadata__": {"format": "pt"}}).encode()
write("safetensors", "f16", len(hdr).to_bytes(8, "little") + hdr + b"\x00\x3c\x00\xc0")
configs = sorted(glob.glob("../golden/data/model_*/config.json"))
for p in configs:
    write("config", p.split("/")[-2], open(p, "rb").read())
# model_dir: the first byte picks the file replaced (0 weights, 1 config, 2 source.spm).
write("model_dir", "weights", b"\x00" + open(sorted(glob.glob("../golden/data/attn_*.safetensors"))[0], "rb").read())
write("model_dir", "config", b"\x01" + open(configs[0], "rb").read())
write("model_dir", "spm", b"\x02" + b"\x0a\x05hello")
for name, text in {"plain": "ka lo mi\nHaus Hund\n".encode(), "bytes": b"ka\xff\xfe lo\r\n\x00nu\n\n   \n",
                   "long": ("ka " * 200).encode(), "unicode": "über naïve Straße — 東京\n".encode()}.items():
    write("text_lines", name, text)
    write("wordpiece", name, text)
write("wordpiece", "bert", "Café déjà vu\t中文字符 über dogs\n".encode() + b"Supercalifragilistic" * 8 +
      b"\n\x01\x7f\xe2\x80\x8b a\xcc\x81 \xff\xfe\t\t\n")

# PyTorch checkpoints (torch.save's own files, made by tests/golden/make_torch_golden.py) and
# the start of a legacy one.
import pickle
import shutil

for fmt in ("zip", "legacy"):
    os.makedirs("corpus/torch_checkpoint", exist_ok=True)
    shutil.copy(f"../golden/data/torch_tensors_{fmt}.bin", f"corpus/torch_checkpoint/torch_tensors_{fmt}.bin")
write("torch_checkpoint", "legacy_magic_only", pickle.dumps(0x1950a86a20f9469cfc6c, protocol=2) + pickle.dumps(1001, protocol=2))

# NumPy .npz archives as numpy writes them: stored (savez, as Marian's models) and deflated
# (savez_compressed), with Marian-style names and a special:model.yml text array.
import io

import numpy as np

arrays = {"Wemb": np.arange(12, dtype=np.float32).reshape(4, 3), "encoder_l1_self_bq": np.ones((1, 3), np.float32),
          "half": np.array([1.5, -2], dtype=np.float16), "ids": np.arange(3, dtype=np.int64),
          "special:model.yml": np.frombuffer(b"type: transformer\ndim-emb: 3\n\0", dtype=np.int8)}
for name, save in (("stored", np.savez), ("deflated", np.savez_compressed)):
    buf = io.BytesIO()
    save(buf, **arrays)
    write("npz", name, buf.getvalue())

# The structure-aware targets read their choices from the bytes (FuzzedDataProvider): any
# bytes are a valid description; these start them from a few different ones. The other files
# of corpus/torch_structured and corpus/npz_structured are what `fuzz_T -merge=1 corpus/T RUN`
# kept from fuzzing runs (each adds coverage), so the short runs of make test start deep.
rng = np.random.default_rng(49)
for target in ("torch_structured", "npz_structured"):
    for i in range(4):
        write(target, f"random_{i}", rng.integers(0, 256, 96 + 64 * i, dtype=np.uint8).tobytes())
    write(target, "zeros", bytes(128))
    write(target, "ones", b"\xff" * 128)

# hf_files: a selector byte (tokenizer_config.json, special_tokens_map.json, tokenizer.json,
# generation_config.json of NLLB; the sharded M2M100's index and tokenizer_config.json; a
# binary shortlist), then the file as the golden directories hold it.
nllb, m2m = "../golden/data/m2m_nllb", "../golden/data/m2m_m2m100_sharded"
for sel, path in [(0, f"{nllb}/tokenizer_config.json"), (1, f"{nllb}/special_tokens_map.json"),
                  (3, f"{nllb}/generation_config.json"), (4, f"{m2m}/model.safetensors.index.json"),
                  (5, f"{m2m}/tokenizer_config.json")]:
    write("hf_files", f"{sel}_{os.path.basename(path)}", bytes([sel]) + open(path, "rb").read())
added = [{"id": i, "content": c, "special": True} for i, c in enumerate(["<s>", "<pad>", "</s>", "<unk>"])]
added += [{"id": 91 + i, "content": c, "special": True} for i, c in enumerate(["eng_Latn", "deu_Latn", "fra_Latn"])]
write("hf_files", "2_tokenizer.json", bytes([2]) + json.dumps({"version": "1.0", "added_tokens": added}).encode())


def marian_binary(first, best, lists, vocab):
    """Marian's binary shortlist: header (magic, checksum, first, best, offsets, ids), u64
    offsets per source id, u32 target ids; the checksum is Marian's hashMem of the u64 words
    after the first two."""
    offsets, ids = [], []
    for s in range(vocab):
        offsets.append(len(ids))
        ids += sorted(lists.get(s, []))
    offsets.append(len(ids))
    body = (np.array([first, best, len(offsets), len(ids)], dtype="<u8").tobytes() +
            np.array(offsets, dtype="<u8").tobytes() + np.array(ids, dtype="<u4").tobytes())
    seed = 0
    for i in range(0, len(body) - len(body) % 8, 8):
        v = int.from_bytes(body[i:i + 8], "little")
        seed ^= (v + 0x9e3779b9 + (seed << 6) + (seed >> 2)) & (2**64 - 1)
    return (0xF11A48D5013417F5).to_bytes(8, "little") + seed.to_bytes(8, "little") + body


write("hf_files", "6_shortlist.bin", bytes([6]) + marian_binary(10, 3, {4: [20, 30], 5: [7]}, 12))
