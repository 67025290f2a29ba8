#!/usr/bin/env bash
# Malformed tensor streams through the tools: each case exits 1 with
# "tool: error: record N: <what>", and the records written before it stay whole.
. "$(dirname "$0")/lib.sh"

tfm-posenc -n 3 -d 4 > good.npy           # 128 bytes of header + 48 of data
tfm-posenc -n 3 -d 4 -t > good.txt

# bad_case NAME FILE PATTERN: tfm-cat and tfm-attend both fail on record 2 of good+FILE,
# after writing exactly one good record.
bad_case() {
    local name=$1 file=$2 pattern=$3
    cat good.npy "$file" > in.npy
    expect_status 1 "$name (tfm-cat)" -- tfm-cat < in.npy
    expect_err "^tfm-cat: error: record 2: $pattern" "$name message"
    cmp -s out good.npy && ok || fail "$name: tfm-cat output is not exactly the first record"
    expect_status 1 "$name (tfm-attend)" -- tfm-attend < in.npy
    expect_err "^tfm-attend: error: record 2: $pattern" "$name message from tfm-attend"
    tfm-attend < good.npy > first.npy
    cmp -s out first.npy && ok || fail "$name: tfm-attend output is not exactly the first result"
}

head -c 3 good.npy > f.npy;                     bad_case "truncated magic" f.npy "truncated header: 3 bytes"
head -c 40 good.npy > f.npy;                    bad_case "truncated header" f.npy "truncated header: expected 118 bytes, got 30"
head -c 150 good.npy > f.npy;                   bad_case "truncated data" f.npy "shape \[3,4\] of float32 needs 48 bytes but only 22 remain"
printf 'PK\003\004 a zip, not an array' > f.npy; bad_case "bad magic" f.npy "bad magic \(not a .npy array\)"
{ npy_preamble "{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }"; printf 'abcd'; } > f.npy
bad_case "unsupported dtype" f.npy "unsupported dtype '<f2' \(tfm reads float32, float64, int32 and int64\)"
{ npy_preamble "{'descr': '<f4', 'fortran_order': False, 'shape': [2], }"; printf 'abcdefgh'; } > f.npy
bad_case "malformed dict" f.npy "malformed .npy header: expected '\(' at offset"
{ npy_preamble "{'descr': '<f4', 'fortran_order': False, }"; } > f.npy
bad_case "missing key" f.npy "malformed .npy header: missing key"
{ npy_preamble "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16), }"; } > f.npy
bad_case "overflowing shape" f.npy "shape \[4294967296,4294967296,16\] has more than"
{ npy_preamble "{'descr': '<f4', 'fortran_order': False, 'shape': (10000, 10000), }"; printf 'abcd'; } > f.npy
bad_case "shape beyond the stream" f.npy "shape \[10000,10000\] of float32 needs 400000000 bytes but only 4 remain"
{ printf '\223NUMPY\002\000\377\377\377\177'; } > f.npy
bad_case "huge header" f.npy "header of 2147483647 bytes exceeds the limit"

# Through a pipe the size is unknown, and the short read is what tells.
head -c 150 good.npy > f.npy
expect_status 1 "truncated data in a pipe" -- bash -c 'cat good.npy f.npy | tfm-cat'
expect_err "^tfm-cat: error: record 2: truncated data: expected 48 bytes, got 22$" "pipe truncation message"
cmp -s out good.npy && ok || fail "pipe: first record intact"
# A sane limit applies to pipes as well, before any allocation.
{ npy_preamble "{'descr': '<f4', 'fortran_order': False, 'shape': (2000000000, 8), }"; } > f.npy
expect_status 1 "a record over the size limit" -- bash -c 'cat f.npy | tfm-cat'
expect_err "record 1: shape \[2000000000,8\] has more than 1073741824 elements" "limit message"
expect_status 1 "TFM_MAX_RECORD_BYTES lowers the limit" -- bash -c 'TFM_MAX_RECORD_BYTES=40 tfm-cat < good.npy'
expect_err "record 1: shape \[3,4\] has more than 10 elements" "env limit message"

# Text input.
text_case() {
    local name=$1 text=$2 pattern=$3
    { cat good.txt; printf '%b' "$text"; } > in.txt
    expect_status 1 "$name" -- tfm-cat < in.txt
    expect_err "^tfm-cat: error: record 2: $pattern" "$name message"
    cmp -s out good.npy && ok || fail "$name: first record intact"
}
text_case "ragged rows" '1 2 3\n4 5\n' "line 6: ragged rows: this row has 2 values, the first row has 3"
text_case "non-numeric" '1 2 x\n' "line 5: non-numeric value 'x'"
text_case "invalid UTF-8" '1 \xff\xfe\n' "line 5: non-numeric value '\?\?'"
text_case "shape mismatch" '# shape: 2 2\n1 2 3\n' "line 6: '# shape:' says \[2,2\] \(4 values\) but the tensor has 3"

# Empty input: tools that need a record say so.
expect_status 1 "empty input" -- tfm-attend < /dev/null
expect_err "^tfm-attend: error: record 1: empty input" "empty input message"
expect_status 0 "tfm-cat of nothing is nothing" -- tfm-cat < /dev/null
[ -s out ] && fail "tfm-cat wrote something for empty input" || ok

# float64, int32, big-endian and Fortran order are read; NaN and Inf pass through.
{ npy_preamble "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }"; printf '\000\000\000\000\000\000\370\077\000\000\000\000\000\000\000\300'; } > f8.npy
expect_status 0 "float64" -- tfm-cat -t f8.npy
[ "$(sed -n 2p out)" = "1.5 -2" ] && ok || fail "float64 values: $(cat out)"
{ npy_preamble "{'descr': '>i4', 'fortran_order': True, 'shape': (2, 2), }"; printf '\000\000\000\001\000\000\000\003\000\000\000\002\000\000\000\004'; } > i4.npy
expect_status 0 "big-endian Fortran int32" -- tfm-cat -t i4.npy
[ "$(head -2 out)" = "$(printf '1 2\n3 4')" ] && ok || fail "int32 values: $(cat out)"
printf 'nan inf -inf 0.5\n' > naninf.txt
expect_status 0 "NaN/Inf" -- bash -c 'tfm-cat < naninf.txt | tfm-cat -t'
[ "$(head -1 out)" = "nan inf -inf 0.5" ] && ok || fail "NaN/Inf round trip: $(cat out)"
finish
