#!/usr/bin/env bash
# tfm-init, tfm-encode, tfm-decode, tfm-translate on a model made here from generated text:
# one output line per input line whatever the input, encode | decode = translate, and every
# broken model directory named in a clear error.
. "$(dirname "$0")/lib.sh"

# A small corpus from a word list (the tests make their own data).
words=(Haus Hund Katze Mann Frau Kind Baum Auto Stadt Fluss Berg See rot blau klein gross alt neu läuft sitzt)
for i in $(seq 1 400); do
    n=$((3 + i % 6)); line=""
    for j in $(seq 1 $n); do line="$line ${words[$(( (i * 7 + j * 13) % ${#words[@]} ))]}"; done
    echo "${line# }"
done > corpus.txt
expect_status 0 "tfm-init with a trained tokenizer" -- tfm-init -o model --preset tiny --train-spm corpus.txt --vocab-size 60 --seed 3
for f in config.json model.safetensors source.spm target.spm; do [ -s "model/$f" ] && ok || fail "model/$f missing"; done
grep -q '"d_model": 32' model/config.json && ok || fail "tiny preset D=32"
v=$(grep -o '"vocab_size": [0-9]*' model/config.json | grep -o '[0-9]*$')
expect_status 0 "tfm-init pre-norm swish halves" -- tfm-init -o model2 --preset tiny --spm model/source.spm --norm pre --activation swish --position-encoding sinusoidal_halves
grep -q '"tfm_norm_placement": "pre"' model2/config.json && ok || fail "pre-norm recorded"
# tfm-export: a clean copy; F32 translates identically, F16 is half the size and still a model.
mkdir -p model/checkpoints
expect_status 0 "tfm-export f32" -- tfm-export -m model -o exp32
[ ! -e exp32/checkpoints ] && cmp -s model/source.spm exp32/source.spm && ok || fail "export copies the model only"
expect_status 0 "tfm-export f16" -- tfm-export -m model -o exp16 --dtype f16
grep -q '"dtype":"F16"' exp16/model.safetensors && ok || fail "F16 weights"
s32=$(stat -c %s exp32/model.safetensors); s16=$(stat -c %s exp16/model.safetensors)
[ $((s16 * 2)) -lt $((s32 + 20000)) ] && [ $((s16 * 2)) -gt $((s32 - 20000)) ] && ok || fail "F16 size $s16 for F32 $s32"
echo "Haus Hund Katze" > one.txt
[ "$(tfm-translate -m model < one.txt)" = "$(tfm-translate -m exp32 < one.txt)" ] && ok || fail "F32 export translates differently"
expect_status 0 "translate with F16 weights" -- tfm-translate -m exp16 < one.txt
expect_status 2 "tfm-export onto a model" -- tfm-export -m model -o exp16
expect_status 1 "tfm-export of no model" -- tfm-export -m nowhere -o exp-none
[ ! -e exp-none ] && ok || fail "a failed export left a directory"

# Separate vocabularies: a source and a target SentencePiece model.
tr a-z A-Z < corpus.txt > upper.txt
tfm-init -o upper --preset tiny --train-spm upper.txt --vocab-size 50 >/dev/null 2>&1
expect_status 0 "tfm-init with two SentencePiece models" -- tfm-init -o sep --preset tiny --spm model/source.spm upper/source.spm
grep -q '"share_encoder_decoder_embeddings": false' sep/config.json && ok || fail "separate embeddings recorded"
grep -q "\"decoder_vocab_size\": $(grep -o '"vocab_size": [0-9]*' upper/config.json | grep -o '[0-9]*$')" sep/config.json && ok ||
    fail "decoder_vocab_size is the target model's"
expect_status 0 "translate with separate vocabularies" -- bash -c 'echo "Haus Hund" | tfm-translate -m sep --max-length 6'
grep -q '[a-z]' out && fail "target text from the source vocabulary: $(cat out)" || ok

# Inputs users really send: empty and blank lines, CRLF, invalid UTF-8, NUL, no final newline.
printf 'Haus Hund\n\n   \nKatze läuft\r\nMann \xff\xfe Frau\nKind\000Baum\nrot blau' > in.txt
lines=$(awk 'END { print NR }' in.txt)
expect_status 0 "tfm-translate" -- tfm-translate -m model --beam 2 --max-length 8 < in.txt
cp out translate.txt
[ "$(awk 'END { print NR }' translate.txt)" -eq "$lines" ] && ok || fail "translate: $(awk 'END{print NR}' translate.txt) lines for $lines"
[ "$(sed -n 2p translate.txt)" = "" ] && [ "$(sed -n 3p translate.txt)" = "" ] && ok || fail "empty and blank lines give empty lines"
expect_status 0 "tfm-encode" -- tfm-encode -m model < in.txt
cp out memory.npy
tfm-cat --info memory.npy > info.txt
[ "$(wc -l < info.txt)" -eq "$lines" ] && ok || fail "encode: $(wc -l < info.txt) records for $lines lines"
grep -q '^memory.npy: record 2: float32 \[0,32\]$' info.txt && ok || fail "an empty line gives a [0,32] record: $(sed -n 2p info.txt)"
grep -q '^memory.npy: record 1: float32 \[[0-9]*,32\]$' info.txt && ok || fail "memory [S,32]: $(head -1 info.txt)"
expect_status 0 "tfm-decode" -- tfm-decode -m model --beam 2 --max-length 8 < memory.npy
cmp -s out translate.txt && ok || fail "encode | decode differs from translate: $(diff out translate.txt | head -5)"
# Greedy, scores, ids, n-best.
expect_status 0 "greedy with scores" -- tfm-translate -m model --beam 1 --scores --max-length 6 < in.txt
awk -F'\t' 'NF != 2 || $1 !~ /^-?[0-9]+\.[0-9]+$/ { bad = 1 } END { exit bad }' out && ok || fail "--scores lines: $(head -3 out)"
expect_status 0 "n-best" -- tfm-translate -m model --beam 3 --n-best 3 --max-length 6 < in.txt
[ "$(wc -l < out)" -eq $((3 * lines - 2 * 2)) ] || [ "$(wc -l < out)" -le $((3 * lines)) ] && ok || fail "n-best line count"
awk -F' \\|\\|\\| ' 'NF != 4 { bad = 1 } { if ($1 == prev && $4 > last + 1e-9) bad = 1; prev = $1; last = $4 } END { exit bad }' out \
    && ok || fail "n-best lines are 'i ||| text ||| features ||| score', best first: $(head -4 out)"
expect_status 0 "ids out" -- tfm-translate -m model --beam 1 --output-ids --max-length 5 < in.txt
awk 'NF > 0 && $0 !~ /^[0-9 ]+$/ { bad = 1 } END { exit bad }' out && ok || fail "--output-ids output: $(head -2 out)"
cp out ids.txt
expect_status 0 "ids in" -- bash -c 'tfm-encode -m model --input-ids < <(printf "5 6 7\n\n8 9 1\n") | tfm-decode -m model --beam 1 --max-length 5 --output-ids'
[ "$(wc -l < out)" -eq 3 ] && ok || fail "--input-ids in: 3 lines expected"
expect_status 1 "ids outside the vocabulary" -- tfm-encode -m model --input-ids < <(printf '5 6\n99999\n')
expect_err '^tfm-encode: error: line 2: id 99999 is outside the vocabulary of' "bad id message"
# Long lines: cut with a warning naming the line, or refused with --strict.
tfm-init -o short --preset tiny --spm model/source.spm --max-positions 8 >/dev/null 2>&1
printf 'Haus\nHaus Hund Katze Mann Frau Kind Baum Auto Stadt Fluss Berg\n' > long.txt
expect_status 0 "long line cut" -- tfm-translate -m short --beam 1 < long.txt
expect_err '^tfm-translate: warning: line 2: [0-9]+ tokens, more than the model.s 8 positions; cut to 8' "cut warning"
[ "$(wc -l < out)" -eq 2 ] && ok || fail "long line still gives its line"
expect_status 1 "long line with --strict" -- tfm-encode -m short --strict < long.txt
expect_err '^tfm-encode: error: line 2: [0-9]+ tokens, more than the model.s 8 positions$' "strict message"
# Attention weights for plotting.
expect_status 0 "--attention-out" -- bash -c 'echo "Haus Hund Katze" | tfm-encode -m model --attention-out att.npy --attention-layers 1'
tfm-cat --info att.npy > att.txt
grep -Eq '^att.npy: record 1: float32 \[4,[0-9]+,[0-9]+\]$' att.txt && [ "$(wc -l < att.txt)" -eq 1 ] && ok || fail "attention record: $(cat att.txt)"
expect_status 2 "--attention-layers past the model" -- bash -c 'echo Haus | tfm-encode -m model --attention-out a.npy --attention-layers 7'

# tfm-decode: bad records.
tfm-posenc -n 3 -d 16 > d16.npy
expect_status 1 "memory of the wrong D" -- bash -c 'cat memory.npy d16.npy | tfm-decode -m model --max-length 3'
expect_err "^tfm-decode: error: record $((lines + 1)): memory \[3,16\] does not fit the model: expected \[S,32\]" "D mismatch names the record"
expect_status 0 "empty input gives no lines" -- tfm-translate -m model < /dev/null
[ -s out ] && fail "output for empty input" || ok
expect_status 2 "--n-best above the beam" -- tfm-translate -m model --beam 2 --n-best 3 < in.txt

# Broken model directories: each names what is wrong.
rm -rf bad; cp -r model bad; rm bad/config.json
broken_model "no config.json" "bad/config.json: cannot open"
rm -rf bad; cp -r model bad; rm bad/model.safetensors
broken_model "no weights" "bad: missing model.safetensors"
rm -rf bad; cp -r model bad; rm bad/source.spm bad/target.spm
broken_model "no tokenizer" "bad: missing source.spm"
rm -rf bad; cp -r model bad; head -c 1000 model/model.safetensors > bad/model.safetensors
broken_model "truncated weights" "bad/model.safetensors: (header length|tensor)"
rm -rf bad; cp -r model bad; printf '\377\377\377\377\377\377\377\177' > bad/model.safetensors
broken_model "lying safetensors header" "header length [0-9]+ exceeds the file or the limit"
bad_config "D % H in the config" 's/"encoder_attention_heads": 4/"encoder_attention_heads": 5/' "d_model=32 is not divisible by encoder_attention_heads=5"
bad_config "missing config key" '/"decoder_ffn_dim"/d' "missing key 'decoder_ffn_dim'"
bad_config "weights of another architecture" 's/"d_model": 32/"d_model": 64/' "tensor 'model.shared.weight' has shape \[$v,32\], expected \[$v,64\]"
bad_config "contradictory vocabulary sizes" "s/\"vocab_size\": $v/\"vocab_size\": $((v - 5))/" "share_encoder_decoder_embeddings needs decoder_vocab_size=$v equal to vocab_size=$((v - 5))"
bad_config "vocabulary smaller than the weights" "s/vocab_size\": $v/vocab_size\": $((v - 5))/g" "tensor 'model.shared.weight' has shape \[$v,32\], expected \[$((v - 5)),32\]"
rm -rf bad; cp -r model bad; echo '{not json' > bad/config.json
broken_model "malformed config" "bad/config.json: malformed JSON"
rm -rf bad; cp -r model bad; echo 'garbage' > bad/source.spm
broken_model "corrupt tokenizer" "bad/source.spm: not a SentencePiece model"
expect_status 1 "not a directory" -- bash -c 'echo Haus | tfm-translate -m /nonexistent'
expect_err "/nonexistent: not a model directory" "not a directory message"
finish
