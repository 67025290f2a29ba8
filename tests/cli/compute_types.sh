#!/usr/bin/env bash
# --compute-type float32|bfloat16|int8|auto on the shipped model: each translates simple
# German (the content words come out), gives the same bytes for any thread count and the same
# translations for any batch size, agrees through encode | decode and with tfm-score; a CPU
# without the instructions (oneDNN's DNNL_MAX_CPU_ISA shows one) gets a clear refusal, and
# auto falls back. tfm-export --dtype int8 writes int8 weights that load as the same model.
# tfm-train --compute-type bfloat16 trains, and resumes across compute types.
. "$(dirname "$0")/lib.sh"
model="$TFM_SOURCE/share/models/multi30k-de-en"
cat > de.txt <<'TXT'
Ein Mann fährt Fahrrad.
Zwei Hunde spielen im Schnee.
Eine Frau singt auf einer Bühne.
Ein kleines Mädchen isst einen Apfel.

Drei Kinder sitzen auf einer Bank vor einem großen Haus.
TXT
check() {  # check FILE LINE WORD-REGEX...
    local file=$1 line=$2
    shift 2
    for w in "$@"; do
        sed -n "${line}p" "$file" | grep -Eqi "$w" && ok || fail "$file line $line lacks /$w/: $(sed -n "${line}p" "$file")"
    done
}
for type in float32 bfloat16 int8 auto; do
    tfm-translate -m "$model" --compute-type $type --beam 4 --threads 2 < de.txt > out 2> err
    status=$?
    if [ "$type" != float32 ] && [ "$status" -eq 1 ] && grep -q 'instructions, which this CPU' err; then
        skip "$type: $(cat err)"  # a CPU without them (AVX2 only): the refusal is checked, the rest cannot run
        continue
    fi
    [ "$status" -eq 0 ] && ok || fail "$type: translate: exit $status; stderr: $(head -c 400 err)"
    cp out $type.txt
    [ "$(awk 'END { print NR }' $type.txt)" -eq 6 ] && ok || fail "$type: 6 lines in, $(awk 'END { print NR }' $type.txt) out"
    check $type.txt 1 '\bman\b' 'bike|bicycle|cycl'
    check $type.txt 2 '\b(two|2)\b' '\bdogs\b' '\bsnow'
    check $type.txt 3 '\bwoman\b' '\bsing' '\bstage\b'
    check $type.txt 4 '\bgirl\b' '\beat' '\bapple\b'
    [ -z "$(sed -n 5p $type.txt)" ] && ok || fail "$type: the empty line gave '$(sed -n 5p $type.txt)'"
    check $type.txt 6 '\b(three|3)\b' '\b(children|kids)\b' '\bbench\b'
    expect_status 0 "$type: one thread, scores" -- tfm-translate -m "$model" --compute-type $type --beam 4 --threads 1 --scores < de.txt
    cp out $type.t1
    expect_status 0 "$type: two threads, scores" -- tfm-translate -m "$model" --compute-type $type --beam 4 --threads 2 --scores < de.txt
    cmp -s out $type.t1 && ok || fail "$type: 1 and 2 threads differ: $(diff out $type.t1 | head -4)"
    expect_status 0 "$type: batches of 1" -- tfm-translate -m "$model" --compute-type $type --beam 4 --batch-size 1 < de.txt
    cmp -s out $type.txt && ok || fail "$type: --batch-size 1 translates otherwise: $(diff out $type.txt | head -4)"
    expect_status 0 "$type: encode | decode" -- bash -c "tfm-encode -m '$model' --compute-type $type < de.txt | tfm-decode -m '$model' --compute-type $type --beam 4"
    cmp -s out $type.txt && ok || fail "$type: encode | decode differs from translate: $(diff out $type.txt | head -4)"
    # Teacher-forced scores of the translations, against the scores the search gave them.
    expect_status 0 "$type: score" -- bash -c "paste de.txt $type.txt | grep -v '^\s*$' | tfm-score -m '$model' --compute-type $type --normalize"
    [ "$(awk 'END { print NR }' out)" -eq 5 ] && ok || fail "$type: tfm-score printed $(awk 'END { print NR }' out) lines"
    awk '$1 > 0 || $1 < -3 { bad = 1 } END { exit bad }' out && ok || fail "$type: per-token log-probabilities out of range: $(head -3 out)"
done
# The reduced types change words rarely: on these six lines at most one line may differ.
for type in bfloat16 int8; do
    [ -f $type.txt ] || continue
    n=$(diff float32.txt $type.txt | grep -c '^<' || true)
    [ "$n" -le 1 ] && ok || fail "$type: $n of 6 lines differ from float32: $(diff float32.txt $type.txt)"
done
# tfm-export --dtype int8: a quarter of the F32 file's size; with --compute-type int8 it
# translates to the very bytes (scores too) the F32 model quantised at load gives; on any CPU
# (AVX2 only included) it loads in float32 as well, its int8 rows times their scales.
expect_status 0 "export f32" -- tfm-export -m "$model" -o m32
expect_status 0 "export int8" -- tfm-export -m "$model" -o m8 --dtype int8
s32=$(stat -c %s m32/model.safetensors) s8=$(stat -c %s m8/model.safetensors)
[ $((s8 * 100 / s32)) -le 27 ] && ok || fail "the int8 file is $s8 bytes against $s32 in F32"
if [ -f int8.t1 ]; then
    expect_status 0 "int8 file: int8" -- tfm-translate -m m8 --compute-type int8 --beam 4 --threads 1 --scores < de.txt
    cmp -s out int8.t1 && ok || fail "the int8 file translates otherwise than F32 quantised at load: $(diff out int8.t1 | head -4)"
fi
expect_status 0 "int8 file: float32 on an AVX2 CPU" -- env DNNL_MAX_CPU_ISA=AVX2 tfm-translate -m m8 --beam 4 < de.txt
check out 2 '\b(two|2)\b' '\bdogs\b' '\bsnow'
check out 4 '\bgirl\b' '\beat' '\bapple\b'
expect_status 2 "export: an unknown dtype" -- tfm-export -m "$model" -o m4 --dtype int4
expect_err 'dtype' "export: an unknown dtype: the message"
# A CPU without AVX-512 (oneDNN limited to AVX2): a clear refusal, and auto falls back to float32.
for type in bfloat16 int8; do
    expect_status 1 "$type on an AVX2 CPU" -- env DNNL_MAX_CPU_ISA=AVX2 tfm-translate -m "$model" --compute-type $type < de.txt
    expect_err "compute type $type needs .*instructions.*use float32" "$type on an AVX2 CPU: the message"
done
expect_status 0 "auto on an AVX2 CPU" -- env DNNL_MAX_CPU_ISA=AVX2 tfm-translate -m "$model" --compute-type auto --beam 4 < de.txt
check out 2 '\b(two|2)\b' '\bdogs\b' '\bsnow'
expect_status 0 "help names auto's choice" -- env DNNL_MAX_CPU_ISA=AVX2 tfm-translate --help
grep -q 'this CPU has: float32' out && ok || fail "--help under AVX2 does not say auto is float32: $(grep -A1 compute-type out)"
# Training in bfloat16 (tfm-train --compute-type: bf16 products, float32 sums and weights) where
# the CPU has the units: a run resumes float32 -> bfloat16 -> float32 from its checkpoints, its
# loss near float32's and its weights not equal to them; 1 and 2 threads give the same bits.
# (tests/cli/train.sh checks the refusal and auto's fallback on any CPU.)
copy_corpus 600 > pairs.txt
data=(--src pairs.txt --tgt pairs.txt --log-every 10 --save-every 10)
arch=(--preset tiny --d-model 64 --ffn 128 --batch-tokens 512 --warmup 100 --dropout 0.1)
tfm-train "${data[@]}" "${arch[@]}" --vocab-size 40 -o t32 --steps 30 2>/dev/null
tfm-train "${data[@]}" --spm t32/source.spm "${arch[@]}" -o tmix --steps 10 2>/dev/null
tfm-train "${data[@]}" -o tmix --resume --steps 20 --compute-type bfloat16 >out 2>err
status=$?
if [ "$status" -eq 1 ] && grep -q 'instructions, which this CPU' err; then
    skip "training in bfloat16: $(cat err)"
else
    [ "$status" -eq 0 ] && ok || fail "train in bfloat16: exit $status; stderr: $(head -c 400 err)"
    expect_err 'products in bfloat16 \(avx512_core[a-z0-9_]*\), summed in float32' "bfloat16's note"
    expect_status 0 "resume in float32 after bfloat16" -- tfm-train "${data[@]}" -o tmix --resume --steps 30
    cmp -s t32/model.safetensors tmix/model.safetensors && fail "bfloat16 updates equal float32's" || ok
    l32=$(awk -F'\t' 'END { print $3 }' t32/metrics.tsv) lmix=$(awk -F'\t' 'END { print $3 }' tmix/metrics.tsv)
    awk -v a="$l32" -v b="$lmix" 'BEGIN { exit !(b > 0 && (b - a) / a < 0.05 && (a - b) / a < 0.05) }' && ok ||
        fail "loss after bfloat16 $lmix, float32 $l32"
    for t in 1 2; do
        tfm-train "${data[@]}" --spm t32/source.spm "${arch[@]}" -o tb$t --steps 20 --compute-type bfloat16 --threads $t 2>/dev/null
    done
    [ -s tb1/model.safetensors ] && cmp -s tb1/model.safetensors tb2/model.safetensors && ok ||
        fail "bfloat16 training differs between 1 and 2 threads"
fi
# Bad values are usage errors.
expect_status 2 "an unknown compute type" -- tfm-translate -m "$model" --compute-type fp16 < de.txt
expect_err 'compute-type' "an unknown compute type: the message"
expect_status 2 "tfm-bench: an unknown compute type" -- tfm-bench translate --preset tiny --compute-type float16
finish
