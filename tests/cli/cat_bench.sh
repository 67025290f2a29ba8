#!/usr/bin/env bash
# tfm-cat (concatenation, conversion, --info) and tfm-bench's output formats. Timings are
# never asserted: only that the tables have the promised columns and rows.
. "$(dirname "$0")/lib.sh"

tfm-posenc -n 3 -d 4 > a.npy
printf '1 2\n3 4\n' > b.txt
expect_status 0 "concatenate npy and text files" -- tfm-cat a.npy b.txt
cp out ab.npy
expect_status 0 "--info" -- tfm-cat --info ab.npy
[ "$(cat out)" = "$(printf 'ab.npy: record 1: float32 [3,4]\nab.npy: record 2: int64 [2,2]')" ] && ok || fail "--info: $(cat out)"
expect_status 0 "npy -> text -> npy is lossless" -- bash -c 'tfm-cat -t ab.npy | tfm-cat'
cmp -s out ab.npy && ok || fail "text round trip changed the bytes"
expect_status 0 "stdin as -" -- bash -c 'tfm-cat a.npy - < b.txt'
cmp -s out ab.npy && ok || fail "'-' reads stdin in order"
expect_status 1 "missing file" -- tfm-cat a.npy nope.npy
expect_err "^tfm-cat: error: nope.npy: No such file" "missing file message"
cmp -s out a.npy && ok || fail "records before the missing file are kept"

# tfm-bench: header with the machine and sgemm, then one row per point.
expect_status 0 "bench attention csv" -- tfm-bench attention --n 32,64 --d 32:64:x2 --heads 4 --reps 1 --warmup 0 --sgemm-n 64 --format csv
grep -q '^# machine: .*cores, [0-9]* threads, OpenBLAS' out && ok || fail "bench header: $(head -2 out)"
grep -q '^# sgemm n=64: [0-9.]* GFLOP/s$' out && ok || fail "bench sgemm line"
grep -q '^algorithm,n,D,H,min_ms,median_ms,max_ms,gflop,gflops,of_sgemm,scores_MiB,peak_rss_MiB$' out && ok || fail "csv columns"
[ "$(grep -c '^blocked,[0-9]' out)" -eq 4 ] && ok || fail "2 x 2 points expected: $(cat out)"
# FLOPs are counted, not timed: n=64, D=32 is 4 projections 4*2*64*32*32 + 2*2*64*64*32.
grep -q '^blocked,64,32,4,.*,0\.001,' out && ok || fail "counted GFLOP for n=64, D=32: $(grep '^blocked,64,32' out)"
expect_status 0 "bench json" -- tfm-bench attention --n 32 --d 32 --heads 2 --reps 2 --warmup 0 --sgemm-n 64 --format json
if /usr/bin/python3 -c 'import json' 2>/dev/null; then
    /usr/bin/python3 -c 'import json,sys; d=json.load(open("out")); assert d["points"][0]["n"]==32 and d["machine"][0]["sgemm_gflops"]>0' \
        && ok || fail "bench json: $(head -c 300 out)"
fi
# Algorithms: the plain one holds [H,n,n] scores, the tiled one a fixed scratch; plain scores
# that cannot fit are a note, not a crash.
expect_status 0 "bench plain and tiled" -- tfm-bench attention --n 64,128 --d 32 --heads 2 --algorithm plain,tiled --reps 1 --warmup 0 --sgemm-n 64 --format csv
grep -q '^plain,128,32,2,.*,0\.1,[0-9]*$' out && ok || fail "plain scores 2 x 128 x 128 floats = 0.1 MiB: $(grep '^plain,128' out)"
[ "$(grep -c '^tiled,' out)" -eq 2 ] && ok || fail "two tiled rows: $(cat out)"
expect_status 0 "bench plain that cannot fit" -- tfm-bench attention --n 1000000 --d 64 --heads 8 --algorithm plain --reps 1 --warmup 0 --sgemm-n 64
[ -s err ] && fail "stderr: $(cat err)" || ok
grep -q '^# plain n=1000000 D=64: not run: plain attention at n=1000000 needs 29802.3 GiB of scores, more than the' out && ok || fail "not-run note: $(tail -2 out)"
expect_status 2 "bench unknown algorithm" -- tfm-bench attention --algorithm flash

# Fits: a note after the table (with --fit-min-ms 0 every point takes part); CSV stays one table.
expect_status 0 "bench attention fit" -- tfm-bench attention --n 32:128:x2 --d 32 --heads 2 --reps 1 --warmup 0 --sgemm-n 64 --fit-min-ms 0
grep -Eq '^# fit: time ~ n\^-?[0-9]+\.[0-9]{2} \(R\^2 -?[0-9.]+, 3 points with median >= 0 ms\)$' out && ok || fail "fit note: $(tail -2 out)"
expect_status 0 "bench attention fit, csv" -- tfm-bench attention --n 32:128:x2 --d 32 --heads 2 --reps 1 --warmup 0 --sgemm-n 64 --fit-min-ms 0 --format csv
grep -q '^# fit' out && fail "a fit note inside CSV" || ok
expect_err '^tfm-bench: fit: time ~ n\^' "csv fit note on stderr"

# Table 1 of the paper: four layers, theory columns, every repetition and the fits in JSON.
expect_status 0 "bench layers json" -- tfm-bench layers --n 8:32:x2 --d 16 --heads 2 --radius 4 --reps 2 --warmup 0 --sgemm-n 64 --fit-min-ms 0 --format json
if /usr/bin/python3 -c 'import json' 2>/dev/null; then
    /usr/bin/python3 - <<'PY' && ok || fail "bench layers json: $(head -c 400 out)"
import json
d = json.load(open("out"))
pts = d["points"]
assert [p["layer"] for p in pts[::3]] == ["self-attention", "recurrent", "convolutional", "restricted"], pts
assert [p["n"] for p in pts[:3]] == [8, 16, 32]
assert {(p["layer"], p["complexity"], p["sequential_ops"], p["max_path"]) for p in pts} == {
    ("self-attention", "n^2·d", 1, 1), ("recurrent", "n·d^2", "n", "n"),
    ("convolutional", "k·n·d^2", 1, "log_k(n)"), ("restricted", "r·n·d", 1, "n/r")}
# counted FLOPs: recurrent 4 n d^2, convolution 2 k n d^2 (k = 3), attention 4 n^2 d
g = {(p["layer"], p["n"]): p["gflop"] for p in pts}
assert abs(g[("recurrent", 32)] - 4 * 32 * 16 * 16 * 1e-9) < 1e-6 and abs(g[("self-attention", 32)] - 4 * 32 * 32 * 16 * 1e-9) < 1e-6
assert len(d["repetitions"]) == 2 * len(pts) and all(r["seconds"] > 0 for r in d["repetitions"])
assert [f["layer"] for f in d["fits"]] == ["self-attention", "recurrent", "convolutional", "restricted"]
assert all(f["points"] == 3 for f in d["fits"])
PY
fi
expect_status 0 "bench layers table" -- tfm-bench layers --n 8:32:x2 --d 16 --heads 2 --layers self-attention,recurrent --reps 1 --warmup 0 --sgemm-n 64
grep -Eq '^# D=16: self-attention (and the recurrent layer cost the same at n ~ [0-9]+|is (cheaper|dearer) than the recurrent layer over the whole range)$' out \
    && ok || fail "crossover note: $(tail -3 out)"
expect_status 2 "bench layers: unknown layer" -- tfm-bench layers --kinds lstm
expect_err "unknown layer 'lstm'" "unknown layer message"
expect_status 2 "bench layers: D % H" -- tfm-bench layers --d 30 --heads 4
# Breakdown of an encoder layer: seven parts and their sum per n, shares adding up to 1.
expect_status 0 "bench breakdown" -- tfm-bench breakdown --n 16,32 --d 32 --heads 4 --ffn 64 --reps 1 --warmup 0 --sgemm-n 64 --format csv
[ "$(grep -c '^16,' out)" -eq 8 ] && [ "$(grep -c '^32,' out)" -eq 8 ] && ok || fail "8 rows per n: $(cat out)"
awk -F, '$1 == 32 && $2 != "layer (sum)" { s += $4 } END { exit !(s > 0.99 && s < 1.01) }' out && ok || fail "shares: $(cat out)"
grep -q '^32,QK^T,' out && grep -q '^32,softmax,.*,-$' out && ok || fail "parts named"
# A decoding step with the cache against recomputing the prefix.
expect_status 0 "bench decode-step" -- tfm-bench decode-step --preset tiny --vocab-size 50 --positions 4,8 --reps 1 --warmup 0 --sgemm-n 64 --format csv
grep -q '^position,cached_ms,recomputed_ms,speedup$' out && [ "$(grep -c '^[48],' out)" -eq 2 ] && ok || fail "decode-step rows: $(cat out)"
expect_status 2 "bench decode-step past the model's length" -- tfm-bench decode-step --preset tiny --positions 600
# Plots of sweeps: SVG and PNG files, or text after the table.
expect_status 0 "bench --plot svg" -- tfm-bench layers --n 8:32:x2 --d 16 --heads 2 --radius 4 --reps 1 --warmup 0 --sgemm-n 64 --fit-min-ms 0 --plot l.svg
grep -q '>recurrent (n^-\?[0-9.]*)</text>' l.svg && ok || fail "SVG legend: $(grep -o '>[a-z-]* (n^[^<]*<' l.svg | head -2)"
expect_status 0 "bench --plot png" -- tfm-bench attention --n 16,32 --d 16 --heads 2 --reps 1 --warmup 0 --sgemm-n 64 --plot a.png
[ "$(head -c 8 a.png | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] && ok || fail "PNG plot"
expect_status 0 "bench --plot -" -- tfm-bench attention --n 16,32 --d 16 --heads 2 --reps 1 --warmup 0 --sgemm-n 64 --plot -
grep -q '^ *\* D=16' out && grep -q 'time (s) against n, log-log' out && ok || fail "text plot: $(tail -4 out)"
expect_status 0 "bench --plot - with csv: stdout stays csv" -- tfm-bench attention --n 16,32 --d 16 --heads 2 --reps 1 --warmup 0 --sgemm-n 64 --plot - --format csv
grep -q 'log-log' out && fail "plot inside CSV" || ok
grep -q 'log-log' err && ok || fail "text plot on stderr"
expect_status 2 "bench --plot other extension" -- tfm-bench attention --plot a.jpg
expect_status 0 "bench sgemm markdown" -- tfm-bench sgemm --n 64,128 --reps 1 --sgemm-n 64 --format markdown
grep -q '^| n ' out && ok || fail "markdown table: $(cat out)"
expect_status 2 "bench D % H" -- tfm-bench attention --n 32 --d 30 --heads 4
expect_err "D=30 is not divisible by H=4" "bench D % H message"
expect_status 2 "bench bad range" -- tfm-bench attention --n 64:32
expect_status 2 "bench needs a subcommand" -- tfm-bench
finish
