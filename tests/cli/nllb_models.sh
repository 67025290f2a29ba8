#!/usr/bin/env bash
# NLLB-200 and M2M100 directories as a user downloads them (fixtures:
# tests/golden/make_m2m_golden.py): tfm-translate with --source-lang and per-line >>code<<
# targets gives what PyTorch and transformers' tokenizers and beam search give, greedy and
# beam 4; encode | decode with --target-lang the same; tfm-info lists the languages; a wrong
# code is a usage error naming the model's; tfm-score and tfm-export work on them.
. "$(dirname "$0")/lib.sh"
for m in nllb nllb_legacy m2m100; do
    cp -r "$TFM_GOLDEN/m2m_$m" "$m"
    tsv="$TFM_GOLDEN/m2m_${m}_lines.tsv"
    # one run per source language ("": the tokenizer's default), each line with its own target
    for src in $(cut -f2 "$tsv" | sort -u) ""; do
        awk -F'\t' -v s="$src" '$2 == s { print ">>" $3 "<< " $4 }' "$tsv" > in
        [ -s in ] || continue
        awk -F'\t' -v s="$src" '$2 == s { print $7 }' "$tsv" > want.greedy
        awk -F'\t' -v s="$src" '$2 == s { print $10 }' "$tsv" > want.beam
        flag=${src:+--source-lang $src}
        expect_status 0 "$m ${src:-default} greedy" -- tfm-translate -m "$m" $flag --beam 1 < in
        cmp -s out want.greedy && ok || fail "$m ${src:-default} greedy: $(diff out want.greedy | head -4)"
        if [ -z "$src" ]; then grep -q "no --source-lang: sources are read as" err && ok || fail "$m: no default warning"; fi
        expect_status 0 "$m ${src:-default} beam 4" -- tfm-translate -m "$m" $flag --beam 4 < in
        cmp -s out want.beam && ok || fail "$m ${src:-default} beam 4: $(diff out want.beam | head -4)"
    done
    # encode | decode: one target language for the run, given to tfm-decode
    read -r src tgt < <(awk -F'\t' '$2 != "" && $4 != "" { print $2, $3; exit }' "$tsv")
    awk -F'\t' -v s="$src" -v t="$tgt" '$2 == s && $3 == t { print $4 }' "$tsv" > in
    awk -F'\t' -v s="$src" -v t="$tgt" '$2 == s && $3 == t { print $7 }' "$tsv" > want
    expect_status 0 "$m encode | decode" -- bash -c \
        "tfm-encode -m $m --source-lang $src < in | tfm-decode -m $m --target-lang $tgt --beam 1"
    cmp -s out want && ok || fail "$m encode | decode: $(diff out want | head -4)"
    expect_status 0 "$m --target-lang for every line" -- tfm-translate -m "$m" --source-lang "$src" --target-lang "$tgt" --beam 1 < in
    cmp -s out want && ok || fail "$m --target-lang: $(diff out want | head -4)"
done

# tfm-info: the languages and the source default
expect_status 0 "tfm-info nllb" -- tfm-info -m nllb
grep -q "^languages: 5 (--source-lang, --target-lang): ace_Arab deu_Latn eng_Latn fra_Latn zho_Hans$" out &&
    ok || fail "tfm-info languages: $(grep languag out)"
grep -q "^source language: eng_Latn unless --source-lang says otherwise$" out && ok || fail "tfm-info source: $(cat out)"
grep -q "^tokenizer: nllb/sentencepiece.bpe.model$" out && ok || fail "tfm-info tokenizer: $(grep tokenizer out)"
expect_status 0 "tfm-info m2m100 --target-languages" -- tfm-info -m m2m100 --target-languages
[ "$(wc -l < out)" -eq 100 ] && grep -qx de out && ok || fail "m2m100 languages: $(head -3 out)"

# wrong codes: usage errors (2) that name the model's; a line's own wrong code: an error (1) naming the line
echo "ein Hund" > one
expect_status 2 "unknown --target-lang" -- tfm-translate -m nllb --source-lang deu_Latn --target-lang deu_latn < one
expect_err "target-lang: deu_latn is not one of the model's 5 languages: ace_Arab deu_Latn" "unknown --target-lang message"
expect_status 2 "unknown --source-lang on m2m100" -- tfm-translate -m m2m100 --source-lang deu --target-lang en < one
expect_err "source-lang: deu is not one of the model's 100 languages; closest: .*\bde\b" "m2m100 close matches"
printf 'ein Hund\n>>xx_Latn<< ein Hund\n' > two
expect_status 1 "a line's unknown code" -- tfm-translate -m nllb --target-lang eng_Latn --beam 1 < two
expect_err "line 2: >>xx_Latn<<: xx_Latn is not one of the model's 5 languages" "line code message"
[ "$(wc -l < out)" -eq 1 ] && ok || fail "the line before the bad one is not out: $(cat out)"
expect_status 1 "no target language at all" -- tfm-translate -m nllb --beam 1 < one
expect_err "line 1: no target language: give --target-lang, or start the line with >>code<<" "no target message"
expect_status 2 "--source-lang on a model without language tokens" -- \
    tfm-translate -m "$TFM_SOURCE/share/models/multi30k-de-en" --source-lang deu_Latn < one
expect_err "source-lang deu_Latn: this model takes no source language" "--source-lang refusal"
expect_status 2 "tfm-encode --target-lang on nllb" -- tfm-encode -m nllb --target-lang eng_Latn < one
expect_err "give it to tfm-decode" "tfm-encode --target-lang message"
echo ">>eng_Latn<< ein Hund" > coded
expect_status 1 "tfm-encode of a line with its own target" -- tfm-encode -m nllb --source-lang deu_Latn < coded
expect_err "line 1: a leading >>code<< chooses the target language in tfm-translate" "tfm-encode line code"
expect_status 0 "tfm-decode without --target-lang" -- bash -c "tfm-encode -m nllb < one 2>/dev/null | tfm-decode -m nllb --beam 1"
expect_err "no --target-lang: the first output token" "tfm-decode unforced warning"

# tfm-score: targets start with their language's token
printf 'ein Hund rennt\tthe dog runs\n\tthe dog\n' > pairs
expect_status 0 "tfm-score nllb" -- tfm-score -m nllb --source-lang deu_Latn --target-lang eng_Latn --tokens pairs
[ "$(wc -l < out)" -eq 2 ] && awk -F'\t' '{ if ($1 + 0 >= 0 || NF != 2) bad = 1 } END { exit bad }' out &&
    ok || fail "tfm-score: $(cat out)"
expect_status 2 "tfm-score nllb without a target language" -- tfm-score -m nllb --source-lang deu_Latn pairs
expect_err "targets start with their language's token" "tfm-score target language message"

# tfm-export writes a directory that loads back and translates the same
expect_status 0 "tfm-export nllb" -- tfm-export -m nllb -o exported
awk -F'\t' '$2 == "deu_Latn" { print ">>" $3 "<< " $4 }' "$TFM_GOLDEN/m2m_nllb_lines.tsv" > in
expect_status 0 "original" -- tfm-translate -m nllb --source-lang deu_Latn --beam 4 < in
mv out want
expect_status 0 "exported" -- tfm-translate -m exported --source-lang deu_Latn --beam 4 < in
cmp -s out want && ok || fail "tfm-export of nllb: $(diff out want | head -4)"
finish
