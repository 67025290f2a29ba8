#!/usr/bin/env bash
# Vocabulary shortlists: tfm-shortlist writes Marian's lexical table (text, or binary with
# --binary) from a parallel corpus; tfm-translate --shortlist reads either to the same output,
# --vmap reads CTranslate2's vocabulary map; bad values and files are clear errors.
. "$(dirname "$0")/lib.sh"
model="$TFM_SOURCE/share/models/multi30k-de-en"
for i in $(seq 1 10); do
    echo "Ein Mann fährt Fahrrad."; echo "Eine Frau spielt Ball."; echo "Zwei Hunde laufen im Park."
done > corpus.de
for i in $(seq 1 10); do
    echo "A man rides a bike."; echo "A woman plays ball."; echo "Two dogs run in the park."
done > corpus.en
printf 'Ein Mann spielt im Park.\nZwei Frauen fahren Fahrrad.\n' > test.de

expect_status 0 "tfm-shortlist" -- tfm-shortlist -m "$model" corpus.de corpus.en -o lex.s2t
awk 'NF != 3 || $3 + 0 <= 0 || $3 + 0 > 1 { bad = 1 } END { exit bad || NR == 0 }' lex.s2t && ok ||
    fail "lex.s2t lines: $(head -3 lex.s2t)"
grep -q "▁Mann" lex.s2t && ok || fail "no entry for ▁Mann: $(head -3 lex.s2t)"
expect_status 0 "tfm-shortlist --binary" -- tfm-shortlist -m "$model" corpus.de corpus.en --binary --first 100 --best 20 -o lex.bin
[ "$(od -An -tx8 -N8 lex.bin | tr -d ' ')" = "f11a48d5013417f5" ] && ok || fail "binary magic: $(od -An -tx8 -N8 lex.bin)"

expect_status 0 "full vocabulary" -- tfm-translate -m "$model" --beam 1 < test.de
mv out full
expect_status 0 "--shortlist text" -- tfm-translate -m "$model" --beam 1 --shortlist lex.s2t 100 20 < test.de
mv out text
expect_status 0 "--shortlist binary" -- tfm-translate -m "$model" --beam 1 --shortlist lex.bin < test.de
cmp -s out text && ok || fail "binary and text shortlists differ: $(diff out text | head -4)"
[ "$(wc -l < text)" -eq 2 ] && ok || fail "shortlist output: $(cat text)"
# every target id always: the full search
expect_status 0 "--shortlist FIRST = the vocabulary" -- tfm-translate -m "$model" --beam 1 --shortlist lex.s2t 8000 1 < test.de
cmp -s out full && ok || fail "a shortlist of everything changed the output: $(diff out full | head -4)"
# CTranslate2's map: a line per (source piece, target) pair, the later one kept
awk '{ print $2 "\t" $1 }' lex.s2t > vmap.txt
expect_status 0 "--vmap" -- tfm-translate -m "$model" --beam 1 --vmap vmap.txt < test.de
[ "$(wc -l < out)" -eq 2 ] && ok || fail "--vmap output: $(cat out)"

expect_status 2 "--shortlist with a bad count" -- tfm-translate -m "$model" --shortlist lex.s2t many < test.de
expect_err "shortlist: FIRST 'many' is not a count" "bad FIRST message"
expect_status 2 "--shortlist BEST 0" -- tfm-translate -m "$model" --shortlist lex.s2t 10 0 < test.de
expect_err "BEST must be at least 1" "BEST 0 message"
expect_status 2 "--shortlist and --vmap" -- tfm-translate -m "$model" --shortlist lex.s2t --vmap vmap.txt < test.de
expect_status 1 "a missing shortlist" -- tfm-translate -m "$model" --shortlist missing.s2t < test.de
expect_err "missing.s2t" "missing shortlist message"
head -c 100 lex.bin > cut.bin
expect_status 1 "a cut binary shortlist" -- tfm-translate -m "$model" --shortlist cut.bin < test.de
expect_err "cut.bin: the header's counts" "cut binary message"
head -n 3 corpus.en > short.en
expect_status 1 "tfm-shortlist of files of different lengths" -- tfm-shortlist -m "$model" corpus.de short.en
expect_err "short.en ends after line 3" "corpus lengths message"
finish
