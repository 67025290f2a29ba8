#!/usr/bin/env bash
# tfm-view: the explorer page of a translation model, a BERT-family model and tfm-attend's
# computation, opened in headless Chromium (tests/cli/view_page.py: offline, no errors, the
# layers x heads and tokens in the DOM, hovers and clicks, screenshots whose pixels are the
# weights, step-view numbers equal to tfm-encode's and tfm-attend's); the size cap on long
# input; and clear errors for what tfm-view cannot show. The browser parts are skipped where
# Chromium is not installed (make test installs it).
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
here=$(dirname "$0")
model="$TFM_SOURCE/share/models/multi30k-de-en"
browser=yes
if ! command -v chromium >/dev/null; then
    skip "Chromium is not installed (apt-get install chromium): the pages are not opened"
    browser=
elif ! "$PY" -c 'import numpy' 2>/dev/null; then
    skip "python3-numpy is not installed: the pages are not opened"
    browser=
fi
# Under the sanitizers the tools are what is tested; the pages are the same bytes.
[ "${TFM_SANITIZE:-0}" = 1 ] && browser=
# npy FILE EXPRESSION: FILE holds the NumPy array the expression makes (np is NumPy).
npy() { "$PY" -c "import numpy as np, sys; a = $2; np.save(sys.stdout.buffer, a)" > "$1"; }
# in_browser MODE PAGE ARGS...: view_page.py's checks of the page (its log printed), when
# there is a browser.
in_browser() {
    [ -n "$browser" ] || return 0
    local mode=$1 page=$2
    "$PY" "$here/view_page.py" "$@" > "$page.log" 2>&1 && ok || fail "the $mode page in Chromium: $(grep -v '^ok' "$page.log")"
    cat "$page.log"
}

# A translation model: the page, its tokens and the encoder's weights to compare with.
sentence='Ein Mann fährt Fahrrad.'
expect_status 0 "tfm-view -m" -- bash -c "echo '$sentence' | tfm-view -m '$model' -o view.html"
[ -s view.html ] && [ ! -s err ] && ok || fail "a page and a quiet stderr: $(cat err)"
grep -q '<meta http-equiv="Content-Security-Policy" content="default-src .none.' view.html && ok || fail "a CSP that forbids fetches"
grep -Eq '<(script|link|img)[^>]* (src|href)=' view.html && fail "a page that loads something" || ok
echo "$sentence" | tfm-encode -m "$model" --attention-out att.npy --pieces-out pieces.txt > /dev/null
targets=$(( $(echo "$sentence" | tfm-translate -m "$model" --output-ids | wc -w) + 1 ))  # the decoder's start too
in_browser model view.html pieces.txt att.npy 3 4 "$targets"
# The weights tfm-encode wrote, labelled by its pieces.
expect_status 0 "--weights --labels" -- bash -c \
    "echo '$sentence' | tfm-encode -m '$model' --attention-out - --pieces-out wpieces.txt | tfm-view --weights --labels wpieces.txt -o weights.html"
in_browser weights weights.html pieces.txt att.npy 3 4
expect_status 1 "--weights: records of two sizes" -- bash -c \
    'tfm-posenc -n 6 -d 8 | tfm-attend --heads 2 --weights-out | tfm-view --weights -o x.html'
expect_err "record 2: weights \[2,6,6\] of another size than record 0's" "sizes message"
printf 'a b c\n' > three.txt
expect_status 1 "--labels of the wrong length" -- bash -c \
    "echo '$sentence' | tfm-encode -m '$model' --attention-out - | tfm-view --weights --labels three.txt -o x.html"
expect_err "keys: 3 labels for 6 tokens" "labels message"
expect_status 0 "--weights cut to --max-tokens" -- bash -c \
    'tfm-posenc -n 90 -d 8 | tfm-attend --weights-out | tfm-cat > yw.npy; "$0" -c "import numpy as np, sys; f = open(\"yw.npy\", \"rb\"); np.load(f); np.save(sys.stdout.buffer, np.load(f))" | tfm-view --weights -o cutw.html' "$PY"
expect_err "the weights cut to their first 64 queries and keys \(they have 90 and 90\)" "weights cut message"

# To stdout, the same page.
expect_status 0 "stdout" -- bash -c "echo '$sentence' | tfm-view -m '$model' > stdout.html"
cmp -s view.html stdout.html && ok || fail "-o and stdout write the same page"

# tfm-attend's computation: the step view's numbers are tfm-attend's.
tfm-posenc -n 9 -d 16 | tfm-attend --heads 4 --causal --proj random --seed 3 --weights-out > attend.npy
expect_status 0 "tfm-view --attend" -- bash -c \
    'tfm-posenc -n 9 -d 16 | tfm-view --attend --heads 4 --causal --proj random --seed 3 -o attend.html'
in_browser attend attend.html attend.npy 4 causal
# Q, K, V records; a batch of one is one sequence.
tfm-posenc -n 5 -d 8 > q.npy
tfm-posenc -n 7 -d 8 > k.npy
expect_status 0 "--qkv" -- bash -c 'cat q.npy k.npy k.npy | tfm-view --attend --qkv --heads 2 -o qkv.html'
grep -q '"lists":\["queries","keys"\]' qkv.html && ok || fail "queries and keys listed apart"

# A BERT-family model.
cp -r "$TFM_GOLDEN/bert_uncased" bert
expect_status 0 "BERT" -- bash -c "echo 'The quick brown fox.' | tfm-view -m bert -o bert.html"
echo 'The quick brown fox.' | tfm-encode -m bert --attention-out bert_att.npy --pieces-out bert_pieces.txt > /dev/null
in_browser bert bert.html bert_pieces.txt bert_att.npy 2 4

# A multilingual model: the source language code first, the target's forced after the start.
expect_status 0 "NLLB" -- bash -c \
    "echo 'Hallo Welt' | tfm-view -m '$TFM_GOLDEN/m2m_nllb' --source-lang deu_Latn --target-lang fra_Latn --beam 1 -o nllb.html"
"$PY" - nllb.html <<'PY' && ok || fail "NLLB's language tokens in the page"
import json, re, sys
d = json.loads(re.search(r'id="tfm-data">(.*?)</script>', open(sys.argv[1], encoding="utf-8").read(), re.S).group(1))
src, tgt = d["tokens"]
assert src[0] == "deu_Latn" and src[-1] == "</s>" and tgt[:2] == ["</s>", "fra_Latn"], (src, tgt[:3])
assert any("pre-norm" in n for n in d["notes"]), d["notes"]
PY

# Long input: cut to --max-tokens, said on stderr and in the page.
long=$(for i in $(seq 1 80); do printf 'Hund '; done)
expect_status 0 "a long line" -- bash -c "echo '$long' | tfm-view -m '$model' --max-tokens 16 -o long.html"
expect_err "the source cut to 16 tokens \(it has 81\); --max-tokens raises the cap" "the cut on stderr"
grep -q 'the source cut to 16 tokens (it has 81)' long.html && ok || fail "the cut in the page"
"$PY" - long.html <<'PY' && ok || fail "16 source tokens in the page"
import json, re, sys
d = json.loads(re.search(r'id="tfm-data">(.*?)</script>', open(sys.argv[1], encoding="utf-8").read(), re.S).group(1))
assert len(d["tokens"][0]) == 16 and len(d["tokens"][1]) <= 17, [len(t) for t in d["tokens"]]
PY
expect_status 0 "long tensors" -- bash -c 'tfm-posenc -n 300 -d 8 | tfm-view --attend -o longt.html'
expect_err "X cut to 64 rows \(it has 300\)" "the tensor cut on stderr"

npy heads.npy 'np.zeros((9000, 64, 64), np.float32)'
expect_status 2 "--weights: 9000 heads" -- bash -c 'tfm-view --weights -o x.html < heads.npy'
expect_err "more than 33554432 weights to show \(record 1 is \[9000,64,64\]\)" "the cap on weights named"

# --precision: float16 halves the arrays; both pages load the same tokens.
expect_status 0 "--precision float16" -- bash -c "echo '$sentence' | tfm-view -m '$model' --precision float16 -o small.html"
[ "$(wc -c < small.html)" -lt "$(wc -c < view.html)" ] && grep -q 'the page is compact' small.html && ok ||
    fail "float16 page smaller and saying so: $(wc -c < small.html) vs $(wc -c < view.html)"

# Invalid UTF-8 and markup in the input: a valid page that holds no stray tags.
printf 'Ein \xff Hund </script><script>alert(1)</script>\n' > odd.txt
expect_status 0 "odd bytes and markup" -- bash -c "tfm-view -m '$model' -o odd.html < odd.txt"
[ "$(grep -c '</script>' odd.html)" -eq 3 ] && ok || fail "only the page's own three scripts end: $(grep -c '</script>' odd.html)"

# Pages written into a FIFO (a device alike) and through a symbolic link: neither is replaced.
mkfifo page.fifo
cat page.fifo > from_fifo.html &
expect_status 0 "-o a FIFO" -- bash -c "echo Hund | tfm-view -m '$model' -o page.fifo"
wait
[ -p page.fifo ] && grep -q '</html>' from_fifo.html && ok || fail "the FIFO kept and the page read through it"
ln -s real.html link.html
expect_status 0 "-o a symbolic link" -- bash -c "echo Hund | tfm-view -m '$model' -o link.html"
[ -L link.html ] && grep -q '</html>' real.html && ok || fail "the link kept, its target written"

# What tfm-view refuses.
expect_status 2 "no sentence" -- bash -c "printf '\n  \n' | tfm-view -m '$model' -o x.html"
expect_err "no sentence on stdin" "empty input"
expect_status 2 "two sentences" -- bash -c "printf 'a\nb\n' | tfm-view -m '$model' -o x.html"
expect_err "stdin has 2 lines: tfm-view shows one" "two lines"
expect_status 2 "--step-layer past the model" -- bash -c "echo Hund | tfm-view -m '$model' --step-layer 3 -o x.html"
expect_err "step layer 3: the encoder has 3 layers \(0 to 2\)" "step layer message"
expect_status 2 "--heads without --attend" -- bash -c "echo Hund | tfm-view -m '$model' --heads 2 -o x.html"
expect_err "--heads describes the attention of --attend" "attention flag message"
expect_status 2 "--beam with --attend" -- bash -c 'tfm-posenc -n 4 -d 8 | tfm-view --attend --beam 2 -o x.html'
expect_err "--beam is for a model, not --attend" "model flag message"
expect_status 2 "--max-tokens 0" -- bash -c "echo Hund | tfm-view -m '$model' --max-tokens 0 -o x.html"
expect_status 2 "--precision" -- bash -c "echo Hund | tfm-view -m '$model' --precision float64 -o x.html"
expect_status 2 "two records" -- bash -c 'tfm-posenc -n 4 -d 8 > one.npy; cat one.npy one.npy | tfm-view --attend -o x.html'
expect_err "more records than one sequence" "two records message"
npy batch.npy 'np.ones((2, 3, 8), np.float32)'
expect_status 1 "a batch of two sequences" -- bash -c 'tfm-view --attend -o x.html < batch.npy'
expect_err "one sequence \[T,D\], got \[2,3,8\]" "a batch of two named"
npy nan.npy 'np.where(np.arange(12).reshape(3, 4) == 6, np.nan, 1).astype(np.float32)'
expect_status 1 "NaN in X" -- bash -c 'tfm-view --attend -o x.html < nan.npy'
expect_err "record 1: a NaN in X at \[1,2\]: the values must be finite" "NaN named"
expect_status 1 "NaN in weights" -- bash -c 'tfm-view --weights -o x.html < nan.npy'
expect_err "record 1: a NaN in the weights at \[1,2\]" "NaN in weights named"
expect_status 1 "H does not divide D" -- bash -c 'tfm-posenc -n 4 -d 6 | tfm-view --attend --heads 4 -o x.html'
expect_err "6.*4|4.*6" "D and H named"
expect_status 1 "a directory as output" -- bash -c "echo Hund | tfm-view -m '$model' -o ."
[ ! -e x.html ] && ok || fail "no page after an error"
expect_status 1 "a full disk" -- bash -c "echo Hund | tfm-view -m '$model' > /dev/full"
expect_err "No space left|write" "the write error named"
finish 30
