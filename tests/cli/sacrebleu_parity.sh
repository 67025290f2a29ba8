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
[ "$checks" -ge 72 ] && ok || fail "only $checks checks ran"
finish
