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
grep -q '^n,D,H,min_ms,median_ms,max_ms,gflop,gflops,of_sgemm,scores_MiB$' out && ok || fail "csv columns"
[ "$(grep -c '^[0-9]' out)" -eq 4 ] && ok || fail "2 x 2 points expected: $(cat out)"
# FLOPs are counted, not timed: n=64, D=32 is 4 projections 4*2*64*32*32 + 2*2*64*64*32.
grep -q '^64,32,4,.*,0\.001,' out && ok || fail "counted GFLOP for n=64, D=32: $(grep '^64,32' out)"
expect_status 0 "bench json" -- tfm-bench attention --n 32 --d 32 --heads 2 --reps 2 --warmup 0 --sgemm-n 64 --format json
if /usr/bin/python3 -c 'import json' 2>/dev/null; then
    /usr/bin/python3 -c 'import json,sys; d=json.load(open("out")); assert d["points"][0]["n"]==32 and d["machine"][0]["sgemm_gflops"]>0' \
        && ok || fail "bench json: $(head -c 300 out)"
fi
expect_status 0 "bench sgemm markdown" -- tfm-bench sgemm --n 64,128 --reps 1 --sgemm-n 64 --format markdown
grep -q '^| n ' out && ok || fail "markdown table: $(cat out)"
expect_status 2 "bench D % H" -- tfm-bench attention --n 32 --d 30 --heads 4
expect_err "D=30 is not divisible by H=4" "bench D % H message"
expect_status 2 "bench bad range" -- tfm-bench attention --n 64:32
expect_status 2 "bench needs a subcommand" -- tfm-bench
finish
