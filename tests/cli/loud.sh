#!/usr/bin/env bash
# Every failure is loud, class by class, across the tools it touches:
#   write errors (a full disk, a closed stdout, every output file) are reported, exit 1;
#   the good output before a bad line or record is written whole before the error;
#   option values outside their documented range (NaN, Inf, overflow, duplicates) exit 2;
#   hostile model files (deep JSON, FIFOs, symlink loops, absurd or non-integer sizes) exit 1
#   with the file and key named, never a crash or a hang;
#   directories are never overwritten or left half made; a trained directory is locked;
#   integers in text streams are exact, and the record limit holds for text too.
. "$(dirname "$0")/lib.sh"

words=(Haus Hund Katze Mann Frau Kind Baum Auto Stadt Fluss Berg See rot blau klein gross alt neu)
for i in $(seq 1 300); do
    n=$((3 + i % 6)); line=""
    for j in $(seq 1 $n); do line="$line ${words[$(( (i * 7 + j * 13) % ${#words[@]} ))]}"; done
    echo "${line# }"
done > corpus.txt
tfm-init -o model --preset tiny --train-spm corpus.txt --vocab-size 50 --seed 3 >/dev/null 2>&1 || fail "tfm-init"
printf 'Haus Hund\nKatze Mann Frau\n' > two.txt

# --- Write errors: every tool's stdout, to a full device and to a closed descriptor. -------
full() {  # full DESCRIPTION command...: the command's stdout goes to /dev/full
    local what=$1
    shift
    "$@" >/dev/full 2>err
    local got=$?
    [ $got -eq 1 ] && ok || fail "$what > /dev/full: exit $got, expected 1"
    expect_err 'error: (.*: )?write error: No space left on device' "$what > /dev/full"
}
closed() {  # closed DESCRIPTION command...: the command runs with stdout closed
    local what=$1
    shift
    "$@" >&- 2>err
    local got=$?
    [ $got -eq 1 ] && ok || fail "$what >&-: exit $got, expected 1"
    expect_err 'write error: Bad file descriptor' "$what >&-"
}
tfm-posenc -n 4 -d 8 > pe.npy
tfm-encode -m model < two.txt > mem.npy
for out in full closed; do
    $out tfm-posenc tfm-posenc -n 4 -d 8
    $out "tfm-posenc -t" tfm-posenc -n 4 -d 8 -t
    $out tfm-cat tfm-cat pe.npy
    $out "tfm-cat --info" tfm-cat --info pe.npy
    $out tfm-attend tfm-attend --heads 2 < pe.npy
    $out tfm-encode tfm-encode -m model < two.txt
    $out tfm-decode tfm-decode -m model --beam 1 < mem.npy
    $out tfm-translate tfm-translate -m model --beam 1 < two.txt
    $out tfm-bleu tfm-bleu two.txt -i two.txt
    $out "tfm-bench sgemm" tfm-bench sgemm --n 8 --reps 1 --warmup 0 --sgemm-n 8
    $out "--help" tfm-translate --help
    $out "--version" tfm-cat --version
done
expect_status 1 "--attention-out to a full device" -- tfm-encode -m model --attention-out /dev/full < two.txt
expect_err 'error: /dev/full: write error: No space left on device' "--attention-out write error"
expect_status 1 "--pieces-out to a full device" -- tfm-encode -m model --pieces-out /dev/full < two.txt
expect_err 'error: /dev/full: write error: No space left on device' "--pieces-out write error"

# --- The good output before a bad line or record is written, whole, before the error. ------
for w in 1 2 64; do
    expect_status 1 "translate ids, bad third line (window $w)" -- \
        tfm-translate -m model --beam 1 --input-ids --window $w < <(printf '5 6\n7 8\n9 x\n')
    [ "$(wc -l < out)" -eq 2 ] && ok || fail "translate --window $w: $(wc -l < out) lines before the bad one, expected 2"
    expect_err 'line 3: ' "the bad line is named"
    expect_status 1 "encode ids, bad third line (window $w)" -- \
        tfm-encode -m model --input-ids --window $w < <(printf '5 6\n7 8\n9 x\n')
    [ "$(tfm-cat --info < out | wc -l)" -eq 2 ] && ok || fail "encode --window $w: not 2 records before the bad line"
done
{ cat mem.npy; tfm-posenc -n 3 -d 5; } > mem_bad.npy
expect_status 1 "decode, third record of the wrong width" -- tfm-decode -m model --beam 1 < mem_bad.npy
[ "$(wc -l < out)" -eq 2 ] && ok || fail "decode: $(wc -l < out) lines before the bad record, expected 2"
expect_err 'record 3: memory \[3,5\] does not fit the model' "the bad record is named"

# --- Option values: the documented range, or exit 2 naming the option. --------------------
bad_option() {  # bad_option OPTION-NAME command...
    local name=$1
    shift
    "$@" < /dev/null >out 2>err
    local got=$?
    [ $got -eq 2 ] && ok || fail "$*: exit $got, expected 2; stderr: $(head -c 300 err)"
    grep -q -- "$name" err && ok || fail "$*: the message does not name $name: $(head -c 300 err)"
    [ "$(wc -c < err)" -lt 1000 ] && ok || fail "$*: a message of $(wc -c < err) bytes"
}
bad_option --batch-size tfm-decode -m model --batch-size 2305843009213693952
bad_option --batch-size tfm-translate -m model --batch-size 2305843009213693952
bad_option --batch-size tfm-encode -m model --batch-size 2305843009213693952
bad_option --window tfm-encode -m model --window 0
bad_option --beam tfm-translate -m model --beam 0
bad_option --max-length-a tfm-translate -m model --max-length-a 1e300
bad_option --max-length-b tfm-translate -m model --max-length-b -1
bad_option --max-length tfm-translate -m model --max-length-a 0 --max-length-b 0
bad_option --length-penalty tfm-translate -m model --length-penalty nan
bad_option --length-penalty tfm-decode -m model --length-penalty inf
bad_option --base tfm-posenc -n 4 -d 8 --base nan
bad_option --dim tfm-posenc -n 4 -d 0
bad_option --offset tfm-posenc -n 4 -d 8 --offset -1
bad_option --heads tfm-attend --heads 0
bad_option --key-lengths tfm-attend --key-lengths -1
bad_option --threads tfm-attend --threads 100000
bad_option --range tfm-plot -o x.png --range nan 1
bad_option --attention-layers tfm-encode -m model --attention-out a.npy --attention-layers 0,0
bad_option --attention-layers tfm-encode -m model --attention-out a.npy --attention-layers 7
bad_option --vocab-size tfm-init -o v0 --train-spm corpus.txt --vocab-size 0
bad_option --d-model tfm-init -o huge --spm model/source.spm --preset tiny --d-model 60000 --heads 1
bad_option '--model: an empty string' tfm-translate -m ''
bad_option "--n" tfm-bench attention --n 1:99999999999999:x2
bad_option "--n" tfm-bench sgemm --n 64,64
bad_option --reps tfm-bench sgemm --reps 0
for o in "--label-smoothing nan" "--label-smoothing 1.5" "--lr-factor nan" "--lr-factor -1" "--clip-norm -1" \
         "--dropout 1" "--dropout 2" "--dropout -0.5" "--warmup 0" "--batch-tokens 0"; do
    # shellcheck disable=SC2086
    bad_option "${o%% *}" tfm-train --src corpus.txt --tgt corpus.txt -o never --spm model/source.spm $o
done
[ ! -e never ] && ok || fail "a refused tfm-train created its directory"
expect_status 2 "TFM_THREADS out of range" -- env TFM_THREADS=100000 tfm-attend --heads 2 < pe.npy
expect_err 'TFM_THREADS=.100000. must be an integer from 1 to 1024' "TFM_THREADS message"
expect_status 2 "TFM_THREADS not a number" -- env TFM_THREADS=lots tfm-translate -m model < two.txt

# --- Hostile model files: named, exit 1, no crash, no hang. --------------------------------
# with_deep FILE OLD N: OLD in FILE replaced by N nested empty arrays (too long for sed's arguments).
with_deep() { python3 -c 'import sys; p, old, n = sys.argv[1], sys.argv[2], int(sys.argv[3]); s = open(p).read(); open(p, "w").write(s.replace(old, "[" * n + "]" * n, 1))' "$@"; }
rm -rf bad; cp -r model bad; with_deep bad/config.json 32 200000
broken_model "200000-deep JSON in config.json" 'bad/config.json: JSON nested deeper than 64 levels'
rm -rf bad; cp -r model bad; with_deep bad/config.json 32 20
broken_model "an array for a size" "key 'd_model' must be an integer from 1 to 65536, got an array of 1"
rm -rf bad; cp -r model bad; printf '{"<unk>": 2, "x": DEEP}' > bad/vocab.json; with_deep bad/vocab.json DEEP 200000
broken_model "200000-deep JSON in vocab.json" 'bad/vocab.json: JSON nested deeper than 64 levels'
rm -rf bad; cp -r model bad
python3 - bad/model.safetensors <<'EOF'
import json, struct, sys
path, deep = sys.argv[1], "[" * 200000 + "]" * 200000
data = open(path, "rb").read()
n = struct.unpack("<Q", data[:8])[0]
header = json.loads(data[8:8 + n])
body = data[8 + n:]
text = json.dumps(header)[:-1] + ', "__metadata__": {"deep": ' + deep + '}}'
text += " " * ((8 - len(text) % 8) % 8)
open(path, "wb").write(struct.pack("<Q", len(text)) + text.encode() + body)
EOF
broken_model "200000-deep __metadata__ in the safetensors header" 'bad/model.safetensors: header: JSON nested deeper than 64 levels'
rm -rf bad; cp -r model bad
python3 - bad/model.safetensors <<'EOF'
import json, struct, sys
data = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", data[:8])[0]
header = json.loads(data[8:8 + n])
header["model.shared.weight"]["shape"] = [2147483648, 2147483648]
text = json.dumps(header)
text += " " * ((8 - len(text) % 8) % 8)
open(sys.argv[1], "wb").write(struct.pack("<Q", len(text)) + text.encode() + data[8 + n:])
EOF
broken_model "a tensor of 2^62 elements" 'bad/model.safetensors: tensor .model.shared.weight.: shape \[2147483648,2147483648\] has more than'
bad_config "eps 1e300" 's/"tfm_layer_norm_eps": [0-9.e-]*/"tfm_layer_norm_eps": 1e300/' "key 'tfm_layer_norm_eps' must be a number from 1e-12 to 0.1"
bad_config "2.7 layers" 's/"encoder_layers": 2/"encoder_layers": 2.7/' "key 'encoder_layers' must be an integer from 1 to 1024, got 2.7"
bad_config "an id past int64" 's/"decoder_start_token_id": 0/"decoder_start_token_id": 99999999999999999999/' "key 'decoder_start_token_id' must be an integer from 0 to [0-9]+, got 1e\+20"
bad_config "1000 layers claimed, 2 stored" 's/"encoder_layers": 2/"encoder_layers": 1000/' "no tensor 'model.encoder.layers.999.fc1.weight', which config.json's encoder_layers=1000"
bad_config "a million layers" 's/"encoder_layers": 2/"encoder_layers": 1000000/' "key 'encoder_layers' must be an integer from 1 to 1024, got 1000000"
bad_config "1e15 positions" 's/"max_position_embeddings": [0-9]*/"max_position_embeddings": 1e15/' "key 'max_position_embeddings' must be an integer"
rm -rf bad; cp -r model bad; sed -i 's/"max_position_embeddings": [0-9]*/"max_position_embeddings": 1000000/' bad/config.json
sed -i 's/"d_model": 32/"d_model": 512/; s/"encoder_attention_heads": 4/"encoder_attention_heads": 8/' bad/config.json
broken_model "a sinusoid table of 2^29 values" "max_position_embeddings=1000000 x d_model=512 is a sinusoid table of more than"
rm -rf bad; cp -r model bad; rm bad/config.json; mkfifo bad/config.json
broken_model "config.json is a FIFO" 'bad/config.json: not a regular file'
rm -rf bad; cp -r model bad; rm bad/model.safetensors; mkfifo bad/model.safetensors
broken_model "model.safetensors is a FIFO" 'bad/model.safetensors: not a regular file'
rm -rf bad; cp -r model bad; rm bad/source.spm; mkfifo bad/source.spm
broken_model "source.spm is a FIFO" 'bad/source.spm: not a regular file'
rm -rf bad; cp -r model bad; rm bad/config.json; ln -s config.json bad/config.json
broken_model "config.json a symlink loop" 'bad/config.json: symbolic link loop'
rm -rf bad; cp -r model bad; rm bad/model.safetensors; ln -s loop2 bad/model.safetensors; ln -s model.safetensors bad/loop2
broken_model "model.safetensors a symlink loop" 'bad/model.safetensors: symbolic link loop'
expect_status 1 "-m a file" -- tfm-translate -m /etc/passwd < two.txt
expect_err '/etc/passwd: not a model directory \(a file' "-m a file message"

# --- Directories: never overwritten, never left half made; a trained directory is locked. --
expect_status 2 "tfm-init onto a model" -- tfm-init -o model --preset tiny --spm model/source.spm
expect_err 'model already exists and is not empty \(it holds a model\).*--force' "tfm-init refusal"
cp model/model.safetensors before.safetensors
expect_status 0 "tfm-init --force" -- tfm-init -o model --preset tiny --spm model/source.spm --seed 9 --force
cmp -s before.safetensors model/model.safetensors && fail "--force did not replace the weights" || ok
: > empty.txt
expect_status 1 "--train-spm on an empty file" -- tfm-init -o e --train-spm empty.txt --vocab-size 40
expect_err 'empty.txt: no text to train a SentencePiece model on' "empty --train-spm message"
[ ! -e e ] && ok || fail "a failed tfm-init left a directory"
ls -a | grep -q '^\.tfm-new-' && fail "a staging directory left behind: $(ls -a)" || ok
head -10 corpus.txt > ten.txt
head -9 corpus.txt > nine.txt
expect_status 1 "mismatched line counts" -- tfm-train --src ten.txt --tgt nine.txt -o fresh --preset tiny --spm model/source.spm --steps 1
[ ! -e fresh ] && ok || fail "a refused tfm-train left its directory"
expect_status 1 "empty validation files" -- tfm-train --src ten.txt --tgt ten.txt -o fresh --preset tiny --spm model/source.spm \
    --steps 1 --valid-src empty.txt --valid-tgt empty.txt
[ ! -e fresh ] && ok || fail "a refused tfm-train (validation) left its directory"
expect_status 0 "the rerun with fixed data" -- tfm-train --src ten.txt --tgt ten.txt -o fresh --preset tiny --spm model/source.spm --steps 2
tfm-train --src corpus.txt --tgt corpus.txt -o fresh --resume --steps 100000 --save-every 100000 2>held.err &
holder=$!
for i in $(seq 1 100); do grep -q "sentence pairs" held.err && break; sleep 0.1; done
expect_status 1 "a second trainer on a locked directory" -- tfm-train --src corpus.txt --tgt corpus.txt -o fresh --resume --steps 100000
expect_err "fresh is in use by another tfm-train \(process $holder\)" "lock message names the holder"
kill -INT $holder; wait $holder
sed -i 's/"step": [0-9]*/"step": -1/' "$(ls -d fresh/checkpoints/step-* | tail -1)/state.json"
expect_status 1 "state.json with step -1" -- tfm-train --src ten.txt --tgt ten.txt -o fresh --resume --steps 5
expect_err "state.json: key 'step' must be an integer from 0 to" "state.json message"

# --- Text tensors: integers exact or refused; the record limit holds for text. -------------
[ "$(echo 9223372036854775807 | tfm-cat -t)" = 9223372036854775807 ] && ok || fail "int64 max not exact"
[ "$(echo 9007199254740993 | tfm-cat -t)" = 9007199254740993 ] && ok || fail "2^53+1 not exact"
[ "$(echo '-9223372036854775808 +5' | tfm-cat -t)" = "-9223372036854775808 5" ] && ok || fail "int64 min, +5"
expect_status 1 "an integer past int64" -- bash -c 'echo 9223372036854775808 | tfm-cat -t'
expect_err "integer '9223372036854775808' is out of int64 range" "int64 overflow message"
expect_status 1 "+-1" -- bash -c 'echo "+-1 2" | tfm-cat -t'
expect_err "non-numeric value '\+-1'" "+-1 message"
expect_status 1 "an endless text record over the limit" -- \
    bash -c 'yes "1 2 3 4" | head -200000 | TFM_MAX_RECORD_BYTES=100000 tfm-cat -t'
expect_err 'more than 12500 values \(the record limit' "text record limit message"

# --- One record per line, always; SVG that parsers accept. ---------------------------------
printf 'Haus\n\nHund\n' > gap.txt
expect_status 0 "--attention-out with an empty line" -- tfm-encode -m model --attention-out att.npy --attention-layers 1 < gap.txt
[ "$(tfm-cat --info att.npy | wc -l)" -eq 3 ] && ok || fail "attention records: $(tfm-cat --info att.npy)"
tfm-cat --info att.npy | sed -n 2p | grep -q '\[4,0,0\]' && ok || fail "the empty line's record: $(tfm-cat --info att.npy)"
printf 'a\001b <&> \377\376 c\n' > labels.txt
printf '1 2 3 4\n5 6 7 8\n' | tfm-plot -o lab.svg --labels labels.txt 2>/dev/null
python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' lab.svg && ok || fail "the SVG does not parse"
finish
