#!/usr/bin/env bash
# tfm-posenc from the command line: values, layouts, --add, --relative, --distance, errors.
. "$(dirname "$0")/lib.sh"

# The [50,64] encoding, both layouts, against the PyTorch fixtures.
expect_status 0 "interleaved" -- tfm-posenc -n 50 -d 64
compare "$TFM_GOLDEN/pe_interleaved_n50_d64_o0.npy" out "interleaved matches" --rtol 0 --atol 1e-6
expect_status 0 "halves" -- tfm-posenc -n 50 -d 64 --layout halves
compare "$TFM_GOLDEN/pe_halves_n50_d64_o0.npy" out "halves matches" --rtol 0 --atol 1e-6
expect_status 0 "odd D with offset" -- tfm-posenc -n 9 -d 7 --offset 3
compare "$TFM_GOLDEN/pe_interleaved_n9_d7_o3.npy" out "odd D matches" --rtol 0 --atol 1e-6
# Generated in chunks: a long encoding equals the fixture over its full length.
expect_status 0 "1000 rows" -- tfm-posenc -n 1000 -d 128
compare "$TFM_GOLDEN/pe_interleaved_n1000_d128_o0.npy" out "1000 rows match" --rtol 0 --atol 1e-6

# Text output: first row is 0 1 0 1 ..., second row starts with sin(1).
expect_status 0 "text" -- tfm-posenc -n 2 -d 4 -t
[ "$(sed -n 1p out)" = "0 1 0 1" ] && ok || fail "row 0 is $(sed -n 1p out)"
case "$(sed -n 2p out)" in 0.84147*) ok ;; *) fail "row 1 is $(sed -n 2p out)" ;; esac
expect_status 0 "--format text" -- tfm-posenc -n 2 -d 4 --format text
[ "$(sed -n 1p out)" = "0 1 0 1" ] && ok || fail "--format text row 0"

# --add: x + PE, and x * sqrt(D) + PE with --scale, record after record, [T,D] and [B,T,D].
printf '1 1 1 1\n1 1 1 1\n\n# shape: 2 1 4\n2 2 2 2\n2 2 2 2\n\n' > emb.txt
expect_status 0 "--add" -- tfm-posenc --add -t < emb.txt
expected=$(printf '1 2 1 2\n1.841471 1.5403023 1.0099999 1.9999499\n')
[ "$(head -2 out)" = "$expected" ] && ok || fail "--add rows: $(head -2 out)"
grep -q '^# shape: 2 1 4$' out && ok || fail "--add keeps the [B,T,D] record"
[ "$(sed -n 5,6p out)" = "$(printf '2 3 2 3\n2 3 2 3')" ] && ok || fail "--add batch rows: $(sed -n 5,6p out)"
expect_status 0 "--add --scale" -- tfm-posenc --add --scale -t < emb.txt
[ "$(head -1 out)" = "2 3 2 3" ] && ok || fail "--scale multiplies by sqrt(D)=2: $(head -1 out)"
expect_status 1 "--add with a wrong --dim" -- tfm-posenc --add -d 8 < emb.txt
expect_err '^tfm-posenc: error: record 1: embeddings have D=4 but --dim is 8$' "--dim mismatch"
printf '# shape: 4\n1 2 3 4\n\n' > rank1.txt
expect_status 1 "--add with a rank-1 record" -- tfm-posenc --add < rank1.txt
expect_err 'record 1: expected embeddings \[T,D\] or \[B,T,D\], got \[4\]' "rank-1 refused"
expect_status 1 "--add on empty input" -- tfm-posenc --add < /dev/null
expect_err '^tfm-posenc: error: record 1: empty input' "empty input"

# --relative K: one row per frequency, rotation entries, tiny error.
expect_status 0 "--relative" -- tfm-posenc -n 500 -d 16 --relative 3 -t
[ "$(grep -cv '^$' out)" -eq 8 ] && ok || fail "--relative prints 8 rows for D=16"
awk 'NF == 7 && ($7 > 1e-6 || $3 != $6 || $4 != -$5) { bad = 1 } END { exit bad }' out && ok || fail "--relative rows: $(cat out)"
# --distance K: symmetric in k, largest at k = 0.
expect_status 0 "--distance" -- tfm-posenc -d 64 --distance 10 -t
awk 'NF == 2 { k[NR] = $1; v[$1] = $2 } END {
       for (i = 1; i <= 10; i++) { d = v[i] - v[-i]; if (d > 1e-4 || d < -1e-4) exit 1; if (v[i] >= v[0]) exit 1 }
       if (v[0] != 32) exit 1 }' out && ok || fail "--distance table: $(head -3 out)"

# Usage errors: exit 2 with a message.
expect_status 2 "missing --dim" -- tfm-posenc -n 4
expect_err 'error: --dim is required' "missing --dim message"
expect_status 2 "missing -n" -- tfm-posenc -d 4
expect_status 2 "bad layout" -- tfm-posenc -n 4 -d 4 --layout spiral
expect_status 2 "--scale without --add" -- tfm-posenc -n 4 -d 4 --scale
expect_status 2 "-n with --add" -- tfm-posenc --add -n 4
expect_status 2 "unknown flag" -- tfm-posenc --frobnicate
expect_err "Run 'tfm-posenc --help'" "points to --help"
expect_status 2 "--at without --distance" -- tfm-posenc -n 4 -d 4 --at 3
expect_status 0 "--help" -- tfm-posenc --help
grep -q 'tfm-posenc -n 16 -d 64 | tfm-attend' out && ok || fail "--help shows an example pipeline"
expect_status 0 "--version" -- tfm-posenc --version
grep -Eq '^tfm-posenc \(tfm\) [0-9]+\.[0-9]+' out && ok || fail "--version: $(cat out)"
finish
