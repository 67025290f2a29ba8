#!/usr/bin/env bash
# Alignments, unknown-word replacement, Moses n-best lines and input limits through
# tfm-translate and tfm-decode (the shipped model): indices inside the source and the output,
# soft rows that are distributions, the same through encode | decode, one line (or JSON
# object) per input line whatever the input holds, and bad combinations refused.
. "$(dirname "$0")/lib.sh"
cat > in.de <<'TXT'
Ein Hund rennt über die Wiese .
Zwei Männer sitzen an einem Tisch .

Eine Frau mit einem roten Hut liest ein Buch .
TXT
n=$(wc -l < in.de)
tfm-encode --pieces-out pieces.txt < in.de > /dev/null || fail "tfm-encode --pieces-out"
expect_status 0 "--alignment hard" -- tfm-translate --alignment hard --format jsonl < in.de
python3 - out pieces.txt <<'PY' > check.txt 2>&1 && ok || fail "hard alignment: $(cat check.txt)"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
sources = [len(l.split()) for l in open(sys.argv[2], encoding="utf-8")]
assert len(rows) == len(sources) == 4, (len(rows), sources)
for r, s in zip(rows, sources):
    a = r["alignment"]
    assert [t for _, t in a] == list(range(len(r["ids"]))), a     # one pair per target token
    assert all(0 <= i < max(s - 1, 1) for i, _ in a), (a, s)       # a source token, eos left out
assert rows[2]["alignment"] == [] and rows[2]["translation"] == ""
PY
expect_status 0 "--alignment hard as text" -- tfm-translate --alignment hard < in.de
cp out hard.txt
[ "$(wc -l < out)" -eq "$n" ] && grep -Eq '^.+ \|\|\| ([0-9]+-[0-9]+ ?)+$' out && [ "$(sed -n 3p out)" = " ||| " ] \
    && ok || fail "'text ||| s-t ...' lines: $(cat out)"
[ "$(sed 's/ ||| .*//' out)" = "$(tfm-translate < in.de)" ] && ok || fail "alignment changed the translations"
expect_status 0 "--alignment hard through encode | decode" -- bash -c 'tfm-encode < in.de | tfm-decode --alignment hard'
cmp -s out hard.txt && ok || fail "encode | decode aligns otherwise: $(diff out hard.txt | head -4)"
expect_status 0 "--alignment soft" -- tfm-translate --alignment soft --alignment-layer 0 --alignment-heads 2 --format jsonl < in.de
python3 - out pieces.txt <<'PY' > check.txt 2>&1 && ok || fail "soft alignment: $(cat check.txt)"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
sources = [len(l.split()) for l in open(sys.argv[2], encoding="utf-8")]
for r, s in zip(rows, sources):
    a = r["alignment"]
    assert len(a) == len(r["token_logprobs"]), (len(a), r)       # eos's row too
    for row in a:
        assert len(row) == s and abs(sum(row) - 1) < 1e-4, row
PY
expect_status 0 "--alignment soft as text" -- tfm-translate --alignment soft < in.de
awk -F' [|][|][|] ' 'NF != 2 { bad = 1 } $2 != "" { n = split($2, rows, " "); for (i = 1; i <= n; i++) {
    m = split(rows[i], w, ","); s = 0; for (j = 1; j <= m; j++) s += w[j]; if (s < 0.999 || s > 1.001) bad = 1 } }
    END { exit bad }' out && ok || fail "soft rows: $(head -c 300 out)"
# forced alignment: tfm-score of the greedy output aligns as the search did
expect_status 0 "greedy alignment" -- tfm-translate --beam 1 --alignment hard < in.de
cp out greedy.al
sed 's/ ||| .*//' greedy.al > greedy.en
paste in.de greedy.en | awk -F'\t' '$1 != ""' > pairs.tsv
expect_status 0 "tfm-score --alignment hard" -- tfm-score --alignment hard pairs.tsv
[ "$(sed 's/.* ||| //' out)" = "$(grep -v '^ ||| $' greedy.al | sed 's/.* ||| //')" ] && ok \
    || fail "scoring aligns otherwise: $(cat out) / $(cat greedy.al)"
expect_status 2 "tfm-score --alignment-layer alone" -- tfm-score --alignment-layer 0 pairs.tsv
# Moses n-best: index ||| text ||| features ||| score, best first
expect_status 0 "n-best" -- tfm-translate --n-best 3 < in.de
awk -F' [|][|][|] ' 'NF != 4 || $3 !~ /^F0= -?[0-9.]+ WordPenalty= -?[0-9]+$/ { bad = 1 }
    $1 == p && $4 + 0 > s + 1e-9 { bad = 1 } { p = $1; s = $4 + 0 } END { exit bad }' out \
    && ok || fail "Moses n-best lines: $(head -4 out)"
expect_status 0 "n-best with alignment" -- tfm-translate --n-best 2 --alignment hard < in.de
awk -F' [|][|][|] ' 'NF != 5 { bad = 1 } END { exit bad }' out && ok || fail "n-best with alignment: $(head -3 out)"

# --replace-unk: a target prefix the target vocabulary lacks forces <unk> first
printf 'Ein ☃ rennt .\n' > unk.de
printf '☃\n' > unk.prefix
expect_status 0 "an <unk> without --replace-unk" -- tfm-translate --prefix-file unk.prefix < unk.de
grep -q '⁇' out && ok || fail "no <unk> to replace: $(cat out)"
expect_status 0 "--replace-unk" -- tfm-translate --prefix-file unk.prefix --replace-unk --alignment hard < unk.de
first=$(sed 's/ ||| .*//' out)
grep -q '⁇' out && fail "--replace-unk left an <unk>: $first" || ok
case "$first" in Ein*|☃*|rennt*|.*) ok ;; *) fail "--replace-unk copied no source word: $first" ;; esac
expect_status 0 "--replace-unk in tfm-decode" -- \
    bash -c 'tfm-encode < unk.de | tfm-decode --prefix-file unk.prefix --replace-unk --source-text unk.de --alignment hard'
[ "$(cat out)" = "$(tfm-translate --prefix-file unk.prefix --replace-unk --alignment hard < unk.de)" ] && ok \
    || fail "tfm-decode replaces otherwise: $(cat out)"
expect_status 2 "--replace-unk in tfm-decode without the source" -- bash -c 'tfm-encode < unk.de | tfm-decode --replace-unk'
expect_err "source-text" "--replace-unk without --source-text message"
printf 'Ein Hund\n' > other.de
expect_status 1 "--source-text of other lines" -- \
    bash -c 'tfm-encode < in.de | tfm-decode --replace-unk --source-text other.de'
expect_err "other.de" "--source-text mismatch message"
expect_status 2 "--replace-unk with --output-ids" -- tfm-translate --replace-unk --output-ids < in.de
expect_status 2 "--source-text without --replace-unk" -- bash -c 'tfm-encode < unk.de | tfm-decode --source-text unk.de'
expect_err "not read" "--source-text alone message"

# choices that do not exist
expect_status 2 "--alignment-layer past the decoder" -- tfm-translate --alignment hard --alignment-layer 6 < in.de
expect_err "alignment layer 6 does not exist" "--alignment-layer message"
expect_status 2 "--alignment-heads past the heads" -- tfm-translate --alignment hard --alignment-heads 99 < in.de
expect_err "heads" "--alignment-heads message"
expect_status 2 "--alignment-layer alone" -- tfm-translate --alignment-layer 0 < in.de
expect_status 2 "--alignment other" -- tfm-translate --alignment medium < in.de

# hostile input: every line still one JSON object, with the alignment
printf 'Ein Hund \377\376 rennt\nTab\there \001\002 ctrl\n\n   \nA "quoted" \\ line\n' > hostile.de
expect_status 0 "jsonl of hostile input" -- tfm-translate --format jsonl --alignment hard --n-best 2 < hostile.de
python3 - out <<'PY' > check.txt 2>&1 && ok || fail "hostile jsonl: $(cat check.txt)"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1], "rb").read().decode("utf-8").split("\n")[:-1]]
assert [r["line"] for r in rows] == [1, 2, 3, 4, 5], rows
for r in rows:
    assert all(len(h["alignment"]) == len(h["ids"]) for h in r["n_best"]), r
PY

# input limits: cut with a warning, or refused with --strict; the decoding cap's two names
expect_status 0 "--max-input-length" -- tfm-translate --max-input-length 4 --alignment hard < in.de
expect_err "line 1: 9 tokens, more than --max-input-length 4; cut to 4" "--max-input-length warning"
[ "$(wc -l < out)" -eq "$n" ] && ok || fail "--max-input-length lines: $(cat out)"
awk -F' [|][|][|] ' '{ n = split($2, p, " "); for (i = 1; i <= n; i++) { split(p[i], st, "-"); if (st[1] + 0 > 2) bad = 1 } }
    END { exit bad }' out && ok || fail "alignment past a cut source: $(cat out)"
expect_status 1 "--max-input-length --strict" -- tfm-translate --max-input-length 4 --strict < in.de
expect_err "line 1: 9 tokens, more than --max-input-length 4" "--strict message"
expect_status 2 "--max-input-length 1" -- tfm-translate --max-input-length 1 < in.de
expect_status 0 "--max-decoding-length" -- tfm-translate --max-decoding-length 3 < in.de
cp out a.txt
expect_status 0 "--max-length" -- tfm-translate --max-length 3 < in.de
cmp -s out a.txt && ok || fail "--max-decoding-length and --max-length differ"
expect_status 0 "encode --max-input-length" -- bash -c 'tfm-encode --max-input-length 3 < in.de | tfm-cat --info'
grep -q 'record 1: float32 \[3,' out && ok || fail "tfm-encode --max-input-length: $(head -2 out)"
finish
