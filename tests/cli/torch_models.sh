#!/usr/bin/env bash
# Model directories whose weights are pytorch_model.bin, as transformers writes them (the
# fixtures are torch.save's own files: tests/golden/make_torch_golden.py): tfm-translate reads
# the zip format, the legacy one and half precision, and translates exactly as from the same
# weights in model.safetensors; damaged checkpoints fail with a short message naming the file.
. "$(dirname "$0")/lib.sh"
python3 -c "
import random
random.seed(1)
w = 'ein zwei hund katze mann frau läuft sitzt auf dem tisch gras rot blau'.split()
print('\n'.join(' '.join(random.choice(w) for _ in range(6)) for _ in range(300)))" > corpus.txt
# The golden model's 40 ids, with SentencePiece models of a corpus of that size.
tfm-init -o init --preset tiny --train-spm corpus.txt --vocab-size 40 >/dev/null 2>&1 || fail "tfm-init"
head -5 corpus.txt > in.txt
mkdir st && cp "$TFM_GOLDEN"/model_post_relu_interleaved/* st/ && cp init/*.spm st/
expect_status 0 "translate from model.safetensors" -- tfm-translate -m st --beam 2 < in.txt
cp out want.txt
for k in zip legacy f16; do
    mkdir "t-$k" && cp "$TFM_GOLDEN/model_torch_$k"/* "t-$k/" && cp init/*.spm "t-$k/"
    [ ! -e "t-$k/model.safetensors" ] && ok || fail "t-$k has model.safetensors"
    expect_status 0 "translate from pytorch_model.bin ($k)" -- tfm-translate -m "t-$k" --beam 2 < in.txt
    cmp -s out want.txt && ok || fail "pytorch_model.bin ($k) translates otherwise: $(head -2 out)"
done
# encode | decode reads it too.
expect_status 0 "encode | decode from pytorch_model.bin" -- \
    bash -c 'tfm-encode -m t-zip < in.txt | tfm-decode -m t-zip --beam 2'
cmp -s out want.txt && ok || fail "encode | decode differs: $(head -2 out)"

# tfm-export turns it into a safetensors directory that translates the same.
expect_status 0 "tfm-export of a pytorch_model.bin directory" -- tfm-export -m t-legacy -o exported
[ -s exported/model.safetensors ] && [ ! -e exported/pytorch_model.bin ] && ok || fail "tfm-export wrote $(ls exported)"
expect_status 0 "translate the export" -- tfm-translate -m exported --beam 2 < in.txt
cmp -s out want.txt && ok || fail "the export translates otherwise: $(head -2 out)"

# Damage: truncated, a flipped byte in a tensor (the zip's CRC), not a checkpoint at all, a
# pickle that calls a global a state dict never calls, no weights at all.
size=$(wc -c < t-zip/pytorch_model.bin)
rm -rf bad && cp -r t-zip bad && head -c $((size / 2)) t-zip/pytorch_model.bin > bad/pytorch_model.bin
broken_model "truncated zip checkpoint" "pytorch_model.bin"
rm -rf bad && cp -r t-legacy bad
head -c $(($(wc -c < t-legacy/pytorch_model.bin) - 100)) t-legacy/pytorch_model.bin > bad/pytorch_model.bin
broken_model "truncated legacy checkpoint" "pytorch_model.bin.*(truncated|size)"
rm -rf bad && cp -r t-zip bad
python3 - bad/pytorch_model.bin <<'PY'
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
at = 0
while True:  # the local header of the first storage: flip a byte of its data
    at = b.index(b"PK\x03\x04", at)
    n, e = struct.unpack("<HH", b[at + 26:at + 30])
    name = bytes(b[at + 30:at + 30 + n])
    if name.endswith(b"/data/0"):
        b[at + 30 + n + e + 4] ^= 0x55
        break
    at += 4
open(p, "wb").write(b)
PY
broken_model "a flipped byte in a stored tensor" "pytorch_model.bin.*CRC"
rm -rf bad && cp -r t-zip bad && echo "hello" > bad/pytorch_model.bin
broken_model "not a checkpoint" "pytorch_model.bin: not a PyTorch checkpoint"
rm -rf bad && cp -r t-legacy bad
python3 - bad/pytorch_model.bin <<'PY'
import sys
p = sys.argv[1]
b = open(p, "rb").read()
b = b.replace(b"collections\nOrderedDict\n", b"subprocess\ncheck_output\n", 1)  # the same length
open(p, "wb").write(b)
PY
broken_model "a pickle that calls subprocess.check_output" "calls subprocess\.check_output.*refused"
rm -rf bad && mkdir bad && cp t-zip/config.json init/*.spm bad/
broken_model "no weights at all" "missing model.safetensors \(or pytorch_model.bin, or a sharded checkpoint.s index\)"
# Checkpoints no torch.save writes (tests/cli/craft_torch.py): sizes that would allocate
# without bound or read outside a storage.
python3 "$TFM_SOURCE/tests/cli/craft_torch.py" || fail "craft_torch.py"
for case in "broadcast:more elements than its storage" "huge_storage:more than the archive may expand to" \
            "past_end:reaches past its storage" "overflow:reaches past its storage" "short_entry:holds 8 bytes, 16 expected" \
            "stride_wrap:reaches past its storage" "legacy_view_wrap:storage view '1'" \
            "legacy_past_view:reaches past its storage view"; do
    rm -rf bad && mkdir bad && cp t-zip/config.json init/*.spm bad/ && cp "${case%%:*}.bin" bad/pytorch_model.bin
    broken_model "crafted checkpoint: ${case%%:*}" "${case#*:}"
done
# The two that once broke memory safety (issue 49), through every tool that loads a model.
for case in "stride_wrap:reaches past its storage" "legacy_view_wrap:storage view '1'"; do
    rm -rf bad && mkdir bad && cp t-zip/config.json init/*.spm bad/ && cp "${case%%:*}.bin" bad/pytorch_model.bin
    expect_status 1 "tfm-encode on ${case%%:*}" -- bash -c 'echo Haus | tfm-encode -m bad'
    expect_err "${case#*:}" "tfm-encode on ${case%%:*}: message"
    expect_status 1 "tfm-info on ${case%%:*}" -- tfm-info -m bad
    expect_err "${case#*:}" "tfm-info on ${case%%:*}: message"
    expect_status 1 "tfm-export on ${case%%:*}" -- tfm-export -m bad -o crafted-out
    expect_err "${case#*:}" "tfm-export on ${case%%:*}: message"
    [ ! -e crafted-out ] && ok || fail "tfm-export on ${case%%:*} left crafted-out/ behind"
done
finish
