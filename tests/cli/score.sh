#!/usr/bin/env bash
# tfm-score: one score per pair, in order, from two files or tab-separated lines, text or ids;
# the sum of --tokens is the score, --normalize divides by the token count; a finished
# hypothesis of tfm-translate scores its own log-probability; bad pairs fail naming the line,
# after the pairs before them are written.
. "$(dirname "$0")/lib.sh"
m=$TFM_GOLDEN/opus_tcbig
cut -f1 "$TFM_GOLDEN/opus_tcbig_lines.tsv" > src.txt
cut -f4 "$TFM_GOLDEN/opus_tcbig_lines.tsv" > tgt.txt
n=$(wc -l < src.txt)
expect_status 0 "score two files" -- tfm-score -m "$m" src.txt tgt.txt
cp out two.txt
[ "$(wc -l < two.txt)" -eq "$n" ] && ok || fail "$(wc -l < two.txt) scores for $n pairs"
awk '$1 + 0 < 0 { k++ } END { exit k != NR }' two.txt && ok || fail "scores not all negative: $(head -3 two.txt)"
expect_status 0 "score tab-separated pairs" -- bash -c "paste src.txt tgt.txt | tfm-score -m '$m'"
cmp -s out two.txt && ok || fail "tab-separated differs: $(diff out two.txt | head -3)"
expect_status 0 "batch 1, window 1" -- tfm-score -m "$m" --batch-size 1 --window 1 src.txt tgt.txt
paste out two.txt | awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > 1e-4) bad = 1 } END { exit bad }' && ok \
    || fail "batching changes scores: $(paste out two.txt | head -3)"
expect_status 0 "--tokens" -- tfm-score -m "$m" --tokens src.txt tgt.txt
awk -F'\t' '{ n = split($2, t, " "); s = 0; for (i = 1; i <= n; i++) s += t[i]; d = s - $1; if (d < 0) d = -d;
             if (d > 1e-3 * n + 1e-3) bad = 1 } END { exit bad }' out && ok || fail "--tokens do not sum to the score: $(head -2 out)"
cp out tokens.txt
expect_status 0 "--normalize" -- tfm-score -m "$m" --normalize src.txt tgt.txt
paste out tokens.txt | awk -F'\t' '{ n = split($3, t, " "); d = $1 - $2 / n; if (d < 0) d = -d; if (d > 1e-5) bad = 1 }
    END { exit bad }' && ok || fail "--normalize is not the mean: $(paste out tokens.txt | head -2)"
# a finished greedy hypothesis scores what search accumulated (length penalty none: score = logprob)
expect_status 0 "translate --output-ids" -- tfm-translate -m "$m" --beam 1 --output-ids --max-length 12 < src.txt
cp out hyp.ids
expect_status 0 "translate --scores" -- tfm-translate -m "$m" --beam 1 --scores --length-penalty-type none --max-length 12 < src.txt
cut -f1 out > hyp.scores
cut -f2 "$TFM_GOLDEN/opus_tcbig_lines.tsv" > src.ids
expect_status 0 "score --input-ids" -- tfm-score -m "$m" --input-ids src.ids hyp.ids
# eos is forced as the 12th token (the model's forced_eos_token_id): every hypothesis is finished
paste out hyp.scores | awk '$2 != 0 { d = $1 - $2; if (d < 0) d = -d; if (d > 1e-3) bad = 1; k++ } END { exit bad || k < 5 }' \
    && ok || fail "scores of finished hypotheses differ: $(paste out hyp.scores)"
# --target-lang, the empty target (eos alone), an empty file
printf 'ein Kind spielt\tdie\n' > one.tsv
printf '>>por<< ein Kind spielt\tdie\n' > one-code.tsv
expect_status 0 "explicit code" -- tfm-score -m "$m" < one-code.tsv
cp out want
expect_status 0 "--target-lang" -- tfm-score -m "$m" --target-lang por < one.tsv
cmp -s out want && ok || fail "--target-lang: $(cat out) vs $(cat want)"
printf 'ein Kind\t\n' | tfm-score -m "$m" --tokens > out 2>err && [ "$(cut -f2 out | wc -w)" -eq 1 ] && ok \
    || fail "empty target: $(cat out err)"
expect_status 0 "empty input" -- tfm-score -m "$m" < /dev/null
[ ! -s out ] && ok || fail "empty input wrote $(cat out)"
# bad pairs: the pairs before are written, then the error names the line
printf 'a\tb\nno tab here\nc\td\n' > bad.tsv
expect_status 1 "a line without a tab" -- tfm-score -m "$m" < bad.tsv
expect_err "line 2: no tab" "no tab message"
[ "$(wc -l < out)" -eq 1 ] && ok || fail "lines before the bad one: $(wc -l < out)"
# A second tab is not part of the target (the target would be scored with a tab inside).
printf 'a\tb\nc\td\textra\n' > tabs.tsv
expect_status 1 "a line with two tabs" -- tfm-score -m "$m" < tabs.tsv
expect_err "line 2: more than one tab \(a line is source<TAB>target\)" "two tabs message"
[ "$(wc -l < out)" -eq 1 ] && ok || fail "lines before the two-tab one: $(wc -l < out)"
head -3 src.txt > short.txt
expect_status 1 "files of different lengths" -- tfm-score -m "$m" short.txt tgt.txt
expect_err "short.txt ends after line 3" "length mismatch message"
[ "$(wc -l < out)" -eq 3 ] && ok || fail "pairs before the mismatch: $(wc -l < out)"
printf '1 2\t3 99999\n' > badids.tsv
expect_status 1 "an id outside the vocabulary" -- tfm-score -m "$m" --input-ids < badids.tsv
expect_err "line 1: id 99999 is outside the vocabulary" "bad id message"
python3 -c "print('ein ' * 2000 + '\tdie')" > long.tsv
expect_status 1 "a source longer than the model's positions" -- tfm-score -m "$m" < long.tsv
expect_err "line 1: source of [0-9]+ tokens, more than the model's 1024 positions" "long source message"
expect_status 1 "a missing file" -- tfm-score -m "$m" nothere.txt tgt.txt
expect_err "nothere.txt: No such file" "missing file message"
finish
