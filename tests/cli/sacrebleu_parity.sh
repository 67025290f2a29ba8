#!/usr/bin/env bash
# tfm-bleu against sacreBLEU 2.6.0 itself: every case of tests/golden/data/sacrebleu/expected.tsv
# (written by tests/golden/make_sacrebleu_golden.py from sacreBLEU's command line: its own unit
# test vectors, WMT17 system outputs, Unicode-heavy, degenerate and multi-reference sets) is run
# through tfm-bleu; every score, p-value and confidence interval must equal sacreBLEU's to 0.01
# (p-values: one resample in a thousand), and the signatures must be the same.
. "$(dirname "$0")/lib.sh"
d=$TFM_GOLDEN/sacrebleu
cp "$d"/* .
while IFS=$'\t' read -r id args expected; do
    if [[ $args == *--sentence-level* ]]; then
        expect_status 0 "$id" -- tfm-bleu $args -w 6 -b
        printf '%s\n' "$expected" | tr ' ' '\n' > want
        paste want out | awk -v id="$id" '{ d = $1 - $2; if (d < 0) d = -d; if (d > 0.01 || NF != 2) { print id ": segment " NR ": sacreBLEU " $1 ", tfm " $2; bad = 1 } }
            END { exit bad }' > diffs && [ "$(wc -l < want)" -eq "$(wc -l < out)" ] && ok || fail "$(head -3 diffs)"
        continue
    fi
    expect_status 0 "$id" -- tfm-bleu $args -w 6 -f json
    printf '%s\n' "$expected" > want.json
    python3 - want.json out "$id" <<'PY' && ok || fail "$id: $(cat diffs)"
import json, sys
want, got, case = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
bad = []
def close(a, b, tol):
    if a is None or b is None:
        return a is b
    return abs(a - b) <= tol
def walk(w, g, path):
    if isinstance(w, dict):
        for k, v in w.items():
            if k not in g:
                bad.append(f"{path}.{k} missing")
            else:
                walk(v, g[k], f"{path}.{k}")
    elif isinstance(w, list):
        if len(w) != len(g):
            bad.append(f"{path}: {len(g)} entries, sacreBLEU {len(w)}")
        for i, (a, b) in enumerate(zip(w, g)):
            walk(a, b, f"{path}[{i}]")
    elif isinstance(w, float) or isinstance(g, float):
        tol = 0.0011 if path.endswith("p_value") else 0.01
        if not close(w, g, tol):
            bad.append(f"{path}: sacreBLEU {w}, tfm {g}")
    elif path.endswith(".confidence"):
        pass  # "μ = mean ± ci": the numbers are compared as confidence_mean and confidence_var
    elif w != g:
        bad.append(f"{path}: sacreBLEU {w!r}, tfm {g!r}")
walk(want, got, case)
open("diffs", "w").write("; ".join(bad[:4]))
sys.exit(1 if bad else 0)
PY
done < "$d/expected.tsv"
# What sacreBLEU refuses, tfm-bleu refuses: usage errors (2) and bad input (1), named.
expect_status 2 "a paired test of one system" -- tfm-bleu wmt.ref -i wmt.sys0 --paired-bs
expect_err "paired tests need two systems or more" "paired test message"
expect_status 2 "two paired tests" -- tfm-bleu wmt.ref -i wmt.sys0 wmt.sys1 --paired-bs --paired-ar
expect_status 2 "--sentence-level with two metrics" -- tfm-bleu wmt.ref -i wmt.sys0 -m bleu,chrf --sentence-level
expect_err "one metric at a time" "--sentence-level message"
expect_status 2 "--confidence of two systems" -- tfm-bleu wmt.ref -i wmt.sys0 wmt.sys1 --confidence
expect_status 2 "an unknown metric" -- tfm-bleu wmt.ref -i wmt.sys0 -m meteor
head -3 wmt.sys0 > short.txt
expect_status 1 "hypotheses shorter than the references" -- tfm-bleu wmt.ref -i short.txt
expect_err "hypotheses short.txt has 3 lines, the references 400" "length message"
expect_status 1 "a second reference of another length" -- tfm-bleu wmt.ref short.txt -i wmt.sys0
expect_err "reference file short.txt has 3 lines" "reference length message"
printf 'a\tb\nc\n' > tabs.txt
expect_status 1 "a line without its tab-separated references" -- bash -c "printf 'a\nc\n' | tfm-bleu tabs.txt --num-refs 2"
expect_err "tabs.txt:2: expected 2 tab-separated references, found 1" "--num-refs message"
python3 -c "print(' '.join(['w%d' % i for i in range(5000)]))" > long.txt
expect_status 1 "a TER segment past its limit" -- bash -c "tfm-bleu long.txt -m ter < long.txt"
expect_err "past TER's limit of 16777216 word pairs" "TER limit message"
expect_status 0 "BLEU and chrF of the same long segment" -- bash -c "tfm-bleu long.txt -m bleu,chrf -b < long.txt"
[ "$(tr '\n' ' ' < out)" = "100.00 100.00 " ] && ok || fail "long segment against itself: $(cat out)"
if [ -w /dev/full ]; then
    expect_status 1 "a full disk" -- bash -c "tfm-bleu wmt.ref -i wmt.sys0 > /dev/full"
    expect_err "write error" "full disk message"
fi
[ "$checks" -ge 90 ] && ok || fail "only $checks checks ran"
finish
