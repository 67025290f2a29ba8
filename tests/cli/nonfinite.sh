#!/usr/bin/env bash
# Weights must be finite (issue 49): a NaN or Inf anywhere in a model's weights is an error at
# load naming the tensor and the first bad index, in every tool and every format; finite but
# absurd weights whose activations overflow stop decoding with an error, never a line of pad
# ids or a null score; tfm-export refuses a value its --dtype cannot hold.
. "$(dirname "$0")/lib.sh"

tfm-export -m "$TFM_SOURCE/share/models/multi30k-de-en" -o f32 >/dev/null 2>&1 && ok || fail "tfm-export of the shipped model"
# patch SRC DST TENSOR INDEX VALUE: DST is SRC with one value of TENSOR (F32) replaced (INDEX
# may also name a file of indices, one a line).
patch() {
    rm -rf "$2" && cp -r "$1" "$2"
    python3 - "$2/model.safetensors" "$3" "$4" "$5" <<'PY'
import json, struct, sys
path, name, index, value = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
indices = [int(i) for i in open(index)] if not index.isdigit() else [int(index)]
b = bytearray(open(path, "rb").read())
n = struct.unpack("<Q", b[:8])[0]
t = json.loads(b[8:8 + n])[name]
for i in indices:
    at = 8 + n + t["data_offsets"][0] + 4 * i
    b[at:at + 4] = struct.pack("<f", value)
open(path, "wb").write(bytes(b))
PY
}
emb=model.shared.weight
patch f32 nan $emb 300 nan   # [1,44] of [V,256]
patch f32 inf model.decoder.layers.1.fc2.bias 7 inf
for tool in "tfm-translate" "tfm-encode" "tfm-info" "tfm-export"; do
    for case in "nan:$emb' holds NaN at \[1,44\]" "inf:model.decoder.layers.1.fc2.bias' holds Inf at \[7\]"; do
        m=${case%%:*}
        case $tool in
            tfm-info) cmd="tfm-info -m $m" ;;
            tfm-export) cmd="tfm-export -m $m -o out-$m" ;;
            *) cmd="echo 'Ein Hund.' | $tool -m $m" ;;
        esac
        expect_status 1 "$tool on $m weights" -- bash -c "$cmd"
        expect_err "$m/model.safetensors: tensor '${case#*:} \(weights must be finite\)" "$tool on $m weights: message"
    done
done
[ ! -e out-nan ] && [ ! -e out-inf ] && ok || fail "tfm-export of a non-finite model left a directory"
# Finite weights whose activations overflow: the last decoder layer's LayerNorm gain at 3e38
# makes the logits Inf and the log-probabilities NaN. Decoding stops with an error naming the step.
for i in $(seq 0 255); do echo $i; done > all.txt
patch f32 huge model.decoder.layers.2.final_layer_norm.weight all.txt 3e38
for beam in 1 4; do
    expect_status 1 "overflowing activations, beam $beam" -- bash -c "echo 'Ein Hund läuft.' | tfm-translate -m huge --beam $beam"
    expect_err "log-probabilities are NaN at decoding step 1: its activations overflow float32" "overflow, beam $beam: message"
    [ ! -s out ] && ok || fail "overflow, beam $beam: printed '$(head -c 200 out)'"
    expect_status 1 "overflowing activations, jsonl, beam $beam" -- \
        bash -c "echo 'Ein Hund läuft.' | tfm-translate -m huge --beam $beam --format jsonl"
    grep -q null out && fail "a null score in jsonl" || ok
done
# tfm-export refuses a value its dtype cannot hold, naming where it is, and writes nothing.
patch f32 big model.encoder.layers.0.fc1.weight 5 1e6
expect_status 1 "tfm-export --dtype f16 of 1e6" -- tfm-export -m big -o big-f16 --dtype f16
expect_err "tensor 'model.encoder.layers.0.fc1.weight' holds 1000000.000000 at \[0,5\], outside what F16 holds \(largest 65504\)" \
    "tfm-export --dtype f16 of 1e6: message"
[ ! -e big-f16 ] && ok || fail "tfm-export --dtype f16 of 1e6 left big-f16/"
expect_status 0 "tfm-export --dtype bf16 of 1e6" -- tfm-export -m big -o big-bf16 --dtype bf16
finish
