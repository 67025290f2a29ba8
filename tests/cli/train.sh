#!/usr/bin/env bash
# tfm-train through the real tools: a tiny model learns to copy sequences of words until
# greedy translation copies held-out lines; a resumed run ends with the same weights as an
# uninterrupted one; SIGINT saves a checkpoint; bad input is refused clearly.
# Learning is asserted with margins (at least 40 of 50 held-out lines exact, BLEU at least 90),
# not as an exact point: OpenBLAS picks other kernels on other CPUs, the last bits of every
# product differ, and so does a trajectory near convergence. Validation BLEU on this task with
# the OpenBLAS kernels for Haswell, Sandy Bridge and Nehalem (OPENBLAS_CORETYPE): 95-100 from
# update 200 on, 100 from update 500 on; the runs below take 900 (one vocabulary) and 1000 (two).
# The sanitizer build is there to find memory errors (its updates cost about four times as
# much): it runs 300 updates each and asserts what the runs write, not how well they learned.
. "$(dirname "$0")/lib.sh"
copy_corpus 3000 > all.txt
head -2800 all.txt > train.txt
tail -50 all.txt > test.txt
arch=(--preset tiny --d-model 64 --ffn 128 --batch-tokens 512 --warmup 100 --lr-factor 0.5 --dropout 0)
common=("${arch[@]}" --vocab-size 40)
if [ "${TFM_SANITIZE:-0}" = 1 ]; then learn=300 learn2=300; else learn=900 learn2=1000; fi
# learned VALUE MIN WHAT: a learning outcome of at least MIN, asserted in the release run only
# (the sanitizer run's shorter trainings are not expected to reach it, so it checks nothing).
learned() {
    [ "${TFM_SANITIZE:-0}" = 1 ] && return 0
    awk -v v="$1" -v m="$2" 'BEGIN { exit !(v >= m) }' && ok || fail "$3"
}
third=$((learn / 3))
ck() { printf 'step-%010d' "$1"; }

# Learning: exact copies of unseen lines.
expect_status 0 "train the copy task" -- tfm-train --src train.txt --tgt train.txt -o copy "${common[@]}" --steps $learn \
    --log-every $third --save-every $third --valid-src test.txt --valid-tgt test.txt --valid-every $learn
expect_err "^tfm-train: step $learn "'epoch [0-9]+ loss [0-9.]+ ppl [0-9.]+ lr [0-9.e-]+ [0-9]+ tokens/s$' "progress lines"
expect_err "^tfm-train: step $learn "'validation: loss [0-9.]+, ppl [0-9.]+, BLEU [0-9.]+ \(greedy\)$' "validation line with BLEU"
bleu=$(sed -n "s/^tfm-train: step $learn validation: .*BLEU \\([0-9.]*\\) (greedy)\$/\\1/p" err)
learned "$bleu" 90 "validation BLEU $bleu < 90 on the copy task"
tfm-translate -m copy --beam 1 < test.txt > hyp.txt
expect_status 0 "tfm-bleu" -- tfm-bleu test.txt -i hyp.txt
grep -Eq '^BLEU\|nrefs:1\|case:mixed\|eff:no\|tok:13a\|smooth:exp\|version:[0-9.]+ = [0-9.]+ [0-9./]+ \(BP = [0-9.]+ ratio = [0-9.]+ hyp_len = [0-9]+ ref_len = [0-9]+\)$' out && ok || fail "tfm-bleu: $(cat out)"
learned "$(awk '{ print $3 }' out)" 90 "held-out BLEU below 90: $(cat out)"
expect_status 0 "tfm-bleu of the references themselves" -- tfm-bleu test.txt -i test.txt
grep -Eq '^BLEU\|nrefs:1\|case:mixed\|eff:no\|tok:13a\|smooth:exp\|version:[0-9.]+ = 100.00 100.0/100.0/100.0/100.0 \(BP = 1.000 ratio = 1.000 hyp_len = [0-9]+ ref_len = [0-9]+\)$' out && ok || fail "tfm-bleu: $(cat out)"
expect_status 0 "tfm-bleu from stdin, score only" -- bash -c 'head -50 train.txt | tfm-bleu test.txt -b'
grep -Eq '^[0-9]+\.[0-9]{2}$' out && [ "$(cat out)" != "100.00" ] && ok || fail "tfm-bleu -b: $(cat out)"
expect_status 1 "tfm-bleu with fewer hypotheses" -- bash -c 'head -3 test.txt | tfm-bleu test.txt'
expect_err 'tfm-bleu: error: hypotheses stdin has 3 lines, the references [0-9]+' "tfm-bleu count message"
expect_status 0 "translate the held-out lines" -- tfm-translate -m copy --beam 1 < test.txt
exact=$(paste -d'|' test.txt out | awk -F'|' '$1 == $2 { n++ } END { print n + 0 }')
learned "$exact" 40 "only $exact of 50 held-out lines copied exactly"
[ "$(head -1 copy/metrics.tsv | cut -f1-5)" = "$(printf 'step\tepoch\tloss\tnll\tppl')" ] && ok || fail "metrics.tsv header"
[ "$(grep -c '^[0-9]' copy/metrics.tsv)" -eq 3 ] && ok || fail "metrics.tsv rows: $(cat copy/metrics.tsv)"
[ -d copy/checkpoints/$(ck $third) ] && [ -d copy/checkpoints/$(ck $((2 * third))) ] && ok || fail "checkpoints kept"

# Separate vocabularies: targets in another alphabet (upper case) through their own
# SentencePiece model and embedding table; still learned exactly. Two tables learn a little
# later than one (validation BLEU 99 at update 600, 100 from 800 on).
tr a-z A-Z < train.txt > train.up
tr a-z A-Z < test.txt > test.up
expect_status 0 "--separate-vocab" -- tfm-train --src train.txt --tgt train.up -o upper "${common[@]}" --separate-vocab \
    --steps $learn2 --log-every $learn2 --save-every $learn2
cmp -s upper/source.spm upper/target.spm && fail "source.spm and target.spm are the same model" || ok
grep -q '"share_encoder_decoder_embeddings": false' upper/config.json && ok || fail "config: $(cat upper/config.json)"
expect_status 0 "translate into the other vocabulary" -- tfm-translate -m upper --beam 1 < test.txt
exact=$(paste -d'|' test.up out | awk -F'|' '$1 == $2 { n++ } END { print n + 0 }')
learned "$exact" 40 "separate vocabularies: only $exact of 50 held-out lines exact"
expect_status 2 "--separate-vocab with --spm" -- tfm-train --src train.txt --tgt train.up -o v2 --spm copy/source.spm \
    --separate-vocab --steps 1

# Averaging the last checkpoints: the directory's model is their mean (still copies).
expect_status 0 "--average-last" -- tfm-train --src train.txt --tgt train.txt -o copy --resume --steps $((learn + 100)) --save-every 50 \
    --batch-tokens 512 --warmup 100 --lr-factor 0.5 --dropout 0 --average-last 2
expect_err "the model in copy is the mean of the last 2 checkpoints" "average message"
expect_status 0 "translate with the averaged model" -- tfm-translate -m copy --beam 1 < test.txt
exact=$(paste -d'|' test.txt out | awk -F'|' '$1 == $2 { n++ } END { print n + 0 }')
learned "$exact" 40 "averaged model: only $exact of 50 exact"
cmp -s copy/model.safetensors copy/checkpoints/$(ck $((learn + 100)))/model.safetensors && fail "the average equals the last checkpoint" || ok
# tfm-export --average-last K writes the same mean from the checkpoints afterwards (and K=1 the
# last checkpoint's weights); more than the directory holds is refused.
expect_status 0 "tfm-export --average-last 2" -- tfm-export -m copy -o avg2 --average-last 2
cmp -s copy/model.safetensors avg2/model.safetensors && ok || fail "tfm-export --average-last 2 is not tfm-train's mean"
expect_status 0 "tfm-export --average-last 1" -- tfm-export -m copy -o avg1 --average-last 1
cmp -s avg1/model.safetensors avg2/model.safetensors && fail "--average-last 1 equals the mean of 2" || ok
tfm-translate -m avg1 --beam 1 < test.txt > avg1.txt
cp -r copy last && cp copy/checkpoints/$(ck $((learn + 100)))/model.safetensors last/
tfm-translate -m last --beam 1 < test.txt > last.txt
[ -s avg1.txt ] && cmp -s avg1.txt last.txt && ok || fail "--average-last 1 does not translate as the last checkpoint"
n_ck=$(ls copy/checkpoints | wc -l)
expect_status 1 "--average-last beyond the checkpoints" -- tfm-export -m copy -o avg99 --average-last 99
expect_err "copy holds $n_ck checkpoints, fewer than --average-last 99" "too few checkpoints message"
[ ! -e avg99 ] && ok || fail "a refused export left avg99 behind"

# Early stopping: with a learning rate of zero nothing improves after the first validation.
expect_status 0 "--patience" -- tfm-train --src train.txt --tgt train.txt -o patient --preset tiny --spm copy/source.spm \
    --batch-tokens 512 --lr-factor 0 --steps 100 --valid-src test.txt --valid-tgt test.txt --valid-every 5 --patience 2
expect_err "stopping early: 2 validations without improvement" "early stop message"
[ "$(tail -1 patient/metrics.tsv | cut -f1)" = 15 ] && ok || fail "stopped at step $(tail -1 patient/metrics.tsv | cut -f1), expected 15"

# Exact resume: 40 steps straight = 20 steps, stop, resume to 40.
tfm-train --src train.txt --tgt train.txt -o straight "${common[@]}" --steps 40 --save-every 20 --log-every 20 2>/dev/null
tfm-train --src train.txt --tgt train.txt -o halves "${common[@]}" --steps 20 --save-every 20 --log-every 20 2>/dev/null
expect_status 0 "resume" -- tfm-train --src train.txt --tgt train.txt -o halves --steps 40 --save-every 20 --log-every 20 \
    --batch-tokens 512 --warmup 100 --lr-factor 0.5 --dropout 0 --resume
expect_err "resuming from halves/checkpoints/step-0000000020 at step 20" "resume message"
cmp -s straight/model.safetensors halves/model.safetensors && ok || fail "a resumed run differs from an uninterrupted one"
cmp -s <(cut -f1-6 straight/metrics.tsv) <(cut -f1-6 halves/metrics.tsv) && ok || fail "loss curves differ"
# --compute-type: bfloat16 needs the CPU's bf16 units. Through oneDNN's dispatch seam
# (DNNL_MAX_CPU_ISA=AVX2) any CPU is one without them: bfloat16 is refused before anything is
# written, auto trains in float32 and says so, the same as float32. (tests/cli/compute_types.sh
# trains in bfloat16 where the CPU has the units.)
expect_status 1 "--compute-type bfloat16 without the units" -- env DNNL_MAX_CPU_ISA=AVX2 tfm-train --src train.txt \
    --tgt train.txt -o nobf16 "${common[@]}" --steps 20 --compute-type bfloat16
expect_err 'tfm-train: error: compute type bfloat16 needs AVX512-BF16 or AMX instructions, which this CPU \(avx2\) does not have' \
    "bfloat16 refusal"
[ ! -e nobf16 ] && ok || fail "a refused run left nobf16 behind"
expect_status 0 "--compute-type auto without the units" -- env DNNL_MAX_CPU_ISA=AVX2 tfm-train --src train.txt \
    --tgt train.txt -o autof32 "${common[@]}" --steps 40 --save-every 20 --log-every 20 --compute-type auto
expect_err 'compute type auto: this CPU \(avx2\) has no bfloat16 units \(AVX512-BF16 or AMX\): training in float32' "auto's note"
cmp -s straight/model.safetensors autof32/model.safetensors && ok || fail "auto's float32 differs from float32"
expect_status 2 "--compute-type int8" -- tfm-train --src train.txt --tgt train.txt -o int8 --steps 1 --compute-type int8
# A run resumes with the settings it was started with (batch size, schedule, smoothing,
# dropout) when they are not given again; given again with another value, they win, noted.
tfm-train --src train.txt --tgt train.txt -o bare "${common[@]}" --steps 20 --save-every 20 --log-every 20 2>/dev/null
expect_status 0 "resume without the run's settings" -- tfm-train --src train.txt --tgt train.txt -o bare --steps 40 \
    --save-every 20 --log-every 20 --resume
cmp -s straight/model.safetensors bare/model.safetensors && ok || fail "a run resumed without its settings differs"
grep -q '"warmup": 100' bare/checkpoints/step-0000000040/state.json && ok || fail "settings in state.json"
cp -r bare changed
expect_status 0 "resume with another warmup" -- tfm-train --src train.txt --tgt train.txt -o changed --steps 41 --resume \
    --warmup 50 --log-every 1
expect_err "tfm-train: --warmup 50 replaces the run's 100" "changed setting note"
sed -i 's/"warmup": 50/"warmup": 0/' changed/checkpoints/step-0000000041/state.json
expect_status 1 "a damaged recorded setting" -- tfm-train --src train.txt --tgt train.txt -o changed --steps 42 --resume
expect_err "state.json: the recorded --warmup 0 is out of range" "damaged setting message"
# Every dropout rate the run trains with is in its config.json (and each one changes training).
expect_status 0 "all three dropouts" -- tfm-train --src train.txt --tgt train.txt -o dropped --preset tiny --spm copy/source.spm \
    --steps 2 --batch-tokens 512 --dropout 0.2 --attention-dropout 0.1 --activation-dropout 0.05
grep -q '"dropout": 0.2,' dropped/config.json && grep -q '"attention_dropout": 0.1,' dropped/config.json &&
    grep -q '"activation_dropout": 0.05,' dropped/config.json && ok || fail "dropout rates in config.json: $(cat dropped/config.json)"

# --epochs ends the run after its last epoch's last batch (no update of the next one), and
# --cooldown brings the learning rate down linearly to about zero at that update; a run
# resumed from a checkpoint inside the cooldown ends with the same weights.
plain=(--src train.txt --tgt train.txt --spm copy/source.spm "${arch[@]}" --epochs 2 --log-every 1)
expect_status 0 "--epochs 2 --cooldown 0.5" -- tfm-train -o cool "${plain[@]}" --cooldown 0.5 --save-every 4 --keep 1000
n=$(grep -c '^[0-9]' cool/metrics.tsv)
[ "$(tail -1 cool/metrics.tsv | cut -f2)" = 1 ] && [ "$(awk -F'\t' '$2 == 1' cool/metrics.tsv | wc -l)" -ge 8 ] && ok ||
    fail "--epochs 2: the last update is in epoch $(tail -1 cool/metrics.tsv | cut -f2) (counted from 0)"
# Every rate is the warmup schedule's (factor 0.5, D 64, warmup 100) times 1 up to the cooldown,
# then (n-s+1)/(L+1) over its L = round(n/2) updates: 1/(L+1) of the schedule at the last.
awk -F'\t' -v n="$n" 'function noam(s) { return 0.5 / 8 * (s < 100 ? s / 1000 : 1 / sqrt(s)) }
    NR > 1 { lr[$1] = $6 } END {
    L = int(n / 2 + 0.5); good = 1
    for (s = 1; s <= n; s++) {
        want = noam(s) * (s <= n - L ? 1 : (n - s + 1) / (L + 1))
        if (lr[s] > 1.002 * want || lr[s] < 0.998 * want) { good = 0; print "update " s ": " lr[s] ", not " want }
    }
    exit !good }' cool/metrics.tsv > rates.txt && ok || fail "cooldown rates over $n updates: $(head -3 rates.txt)"
# Before the cooldown, rates and losses are those of a run without it.
tfm-train -o plain "${plain[@]}" --steps $((n / 2 - 1)) 2>/dev/null
cmp -s <(head -$((n / 2 - 1)) cool/metrics.tsv | cut -f1-6) <(head -$((n / 2 - 1)) plain/metrics.tsv | cut -f1-6) && ok ||
    fail "before the cooldown the rates and losses differ from a run without it"
cp -r cool resumed
mid=$(ls resumed/checkpoints | awk -v n="$n" '{ s = substr($0, 6) + 0 } s > n / 2 + 2 && s < n - 2 { print; exit }')
for c in resumed/checkpoints/*; do [[ "$(basename "$c")" > "$mid" ]] && rm -r "$c"; done
expect_status 0 "resume inside the cooldown" -- tfm-train -o resumed --src train.txt --tgt train.txt --epochs 2 --resume
expect_err "resuming from resumed/checkpoints/$mid" "resumed inside the cooldown"
cmp -s cool/model.safetensors resumed/model.safetensors && ok || fail "resumed from $mid inside the cooldown: other weights"

# SIGINT: a checkpoint, exit 130, and the run resumes from it.
tfm-train --src train.txt --tgt train.txt -o stopped "${common[@]}" --steps 100000 --save-every 100000 2>stop.err &
pid=$!
for i in $(seq 1 100); do [ -s stopped/metrics.tsv ] || [ -f stopped/model.safetensors ] && break; sleep 0.1; done
sleep 1
kill -INT $pid
wait $pid
code=$?
[ $code -eq 130 ] && ok || fail "SIGINT exit code $code, expected 130: $(cat stop.err)"
grep -q 'interrupted: checkpoint saved in stopped/checkpoints/step-' stop.err && ok || fail "interrupt message: $(cat stop.err)"
ls stopped/checkpoints | grep -q '^step-' && ok || fail "no checkpoint after SIGINT"

# Bad input.
head -10 train.txt > ten.txt
head -9 train.txt > nine.txt
expect_status 1 "line counts differ" -- tfm-train --src ten.txt --tgt nine.txt -o bad1 "${arch[@]}" --steps 1 --spm copy/source.spm
expect_err "ten.txt has 10 lines but nine.txt has 9" "line count message"
: > empty.txt
expect_status 1 "empty files" -- tfm-train --src empty.txt --tgt empty.txt -o bad2 "${arch[@]}" --steps 1 --spm copy/source.spm
expect_err "empty.txt and empty.txt are empty" "empty message"
expect_status 2 "an existing model without --resume" -- tfm-train --src train.txt --tgt train.txt -o copy "${common[@]}" --steps 1
expect_err "copy already holds a model: give --resume" "existing model message"
expect_status 1 "resume with another architecture" -- tfm-train --src train.txt --tgt train.txt -o copy --resume --preset tiny --d-model 32 --steps 1001
expect_err "another architecture" "architecture message"
expect_status 2 "--vocab-size with --spm" -- tfm-train --src train.txt --tgt train.txt -o v1 --spm copy/source.spm --vocab-size 10 --steps 1
expect_status 2 "--spm with --resume" -- tfm-train --src train.txt --tgt train.txt -o copy --resume --spm copy/source.spm --steps 1101
expect_status 1 "nothing to resume" -- tfm-train --src train.txt --tgt train.txt -o nowhere --resume --steps 1
mkdir -p ro && chmod 555 ro
if [ "$(id -u)" != 0 ]; then
    expect_status 1 "unwritable output" -- tfm-train --src train.txt --tgt train.txt -o ro/m "${common[@]}" --steps 1
fi
awk 'NR <= 5 { print } NR == 6 { s = ""; for (i = 0; i < 600; i++) s = s " ka"; print s }' train.txt > long.txt
expect_status 0 "long lines are skipped and counted" -- tfm-train --src long.txt --tgt long.txt -o longm "${arch[@]}" --steps 2 --spm copy/source.spm --max-positions 64
expect_err "1 pairs longer than 64 tokens and 0 with an empty side skipped, of 6" "skip count"
finish
