#!/usr/bin/env bash
# tfm-attend from the command line: the README pipeline, the worked example, flags, errors.
. "$(dirname "$0")/lib.sh"

# The README pipeline: output [16,64], then causal weights [4,16,16].
tfm-posenc -n 16 -d 64 > pe.npy
expect_status 0 "README pipeline" -- tfm-attend --heads 4 --causal --weights-out -t < pe.npy
[ "$(sed -n '/^$/q;p' out | wc -l)" -eq 16 ] && ok || fail "output has 16 rows"
grep -q '^# shape: 4 16 16$' out && ok || fail "weights record [4,16,16]"
# Weights: rows sum to 1, nothing above the diagonal.
sed -n '/^# shape: 4 16 16$/,$p' out | awk 'NF == 16 {
    r = (NR - 2) % 16; s = 0
    for (j = 1; j <= 16; j++) { s += $j; if (j - 1 > r && $j != 0) bad = 1 }
    if (s < 0.99999 || s > 1.00001) bad = 1; n++ } END { exit bad || n != 64 }' && ok || fail "causal weights"

# The worked 3-token example: softmax(X X^T) X, unscaled, one head, no projections.
printf '1 0\n0 1\n1 1\n' > x.txt
expect_status 0 "worked example" -- tfm-attend --no-scale --weights-out -t < x.txt
awk -v e="$(awk 'BEGIN { printf "%.9f", exp(1) }')" 'NR == 1 {
      a = e / (2 * e + 1); b = 1 / (2 * e + 1)
      if (($1 - (a + a)) ^ 2 > 1e-12 || ($2 - (b + a)) ^ 2 > 1e-12) exit 1 }
    NR == 3 { c = e / (2 * e + e * e); d = e * e / (2 * e + e * e)
      if (($1 - (c + d)) ^ 2 > 1e-12 || ($2 - (c + d)) ^ 2 > 1e-12) exit 1 }' out && ok || fail "worked example values: $(head -3 out)"

# Random projections: reproducible by seed, different across seeds.
tfm-attend --heads 4 --seed 7 < pe.npy > a.npy
tfm-attend --heads 4 --seed 7 < pe.npy > b.npy
tfm-attend --heads 4 --seed 8 < pe.npy > c.npy
cmp -s a.npy b.npy && ok || fail "same seed, same output"
cmp -s a.npy c.npy && fail "different seeds gave the same output" || ok
expect_status 0 "--proj random" -- tfm-attend --heads 4 --proj random < pe.npy
cmp -s out <(tfm-attend --heads 4 --seed 0 < pe.npy) && ok || fail "--proj random uses seed 0 by default"

# Additive attention and shared K=V run and give probabilities.
expect_status 0 "--additive" -- tfm-attend --heads 2 --additive --seed 3 --weights-out -t < pe.npy
sed -n '/^# shape: 2 16 16$/,$p' out | awk 'NF == 16 { s = 0; for (j = 1; j <= 16; j++) s += $j
    if (s < 0.99999 || s > 1.00001) bad = 1; n++ } END { exit bad || n != 32 }' && ok || fail "additive weights"
expect_status 0 "--shared-kv" -- tfm-attend --heads 4 --seed 1 --shared-kv < pe.npy
cmp -s out a.npy && fail "--shared-kv changed nothing" || ok

# Batched [B,T,D] input with key padding per batch row.
tfm-cat -t pe.npy > pe.txt
{ echo "# shape: 2 16 64"; sed '/^$/d' pe.txt; sed '/^$/d' pe.txt; echo; } > batch.txt
expect_status 0 "batch with --key-lengths" -- tfm-attend --heads 4 --key-lengths 16,3 --weights-out -t < batch.txt
grep -q '^# shape: 2 4 16 16$' out && ok || fail "batched weights [2,4,16,16]"
sed -n '/^# shape: 2 4 16 16$/,$p' out | awk 'NF == 16 { n++; if (n > 64) for (j = 4; j <= 16; j++) if ($j != 0) bad = 1 }
    END { exit bad || n != 128 }' && ok || fail "keys past length 3 get zero weight in batch row 2"

# Errors: exit 1 with "record N: ...", exit 2 for usage.
tfm-posenc -n 4 -d 10 > d10.npy
expect_status 1 "D % H" -- tfm-attend --heads 3 < d10.npy
expect_err '^tfm-attend: error: record 1: D=10 is not divisible by H=3 heads' "D % H message"
expect_status 1 "too few key lengths" -- tfm-attend --key-lengths 4 < <(cat pe.npy pe.npy)
expect_err 'record 2: --key-lengths has 1 values, too few' "key-lengths count"
expect_status 1 "key length beyond T" -- tfm-attend --key-lengths 17 < pe.npy
expect_err 'record 1: key length 17 exceeds the 16 keys' "key length > T"
expect_status 1 "--qkv missing V" -- tfm-attend --qkv < <(cat pe.npy pe.npy)
expect_err '^tfm-attend: error: record 3: stream ended \(expected V\)$' "--qkv missing V message"
tfm-posenc -n 5 -d 64 > pe5.npy
expect_status 1 "--qkv K and V lengths differ" -- tfm-attend --qkv < <(cat pe.npy pe.npy pe5.npy)
expect_err 'record 3: V has 5 rows but K has 16' "K/V rows"
expect_status 1 "--cross memory of another D" -- tfm-attend --cross < <(cat pe.npy d10.npy)
expect_err 'record 2: shape \[4,10\] does not go with the queries. \[16,64\]' "cross D mismatch"
expect_status 1 "D changes mid-stream" -- tfm-attend --seed 1 < <(cat pe.npy d10.npy)
expect_err 'record 2: D=10 differs from the first record.s D=64' "D change"
expect_status 1 "ids are not activations" -- tfm-attend < <(printf '# shape: 3\n1 2 3\n')
expect_err 'record 1: X must be \[T,D\] or \[B,T,D\], got \[3\]' "rank-1 input"
expect_status 1 "empty input" -- tfm-attend < /dev/null
expect_err '^tfm-attend: error: record 1: empty input \(expected X \[T,D\]\)$' "empty input message"
expect_status 2 "--seed with identity" -- tfm-attend --proj identity --seed 3 < pe.npy
expect_status 2 "--params with --proj random" -- tfm-attend --proj random --params "$TFM_GOLDEN/attn_self_h1.safetensors" < pe.npy
expect_status 2 "--params missing file" -- tfm-attend --params /nonexistent.safetensors < pe.npy
expect_status 2 "--cross with --qkv" -- tfm-attend --cross --qkv < pe.npy
expect_status 2 "--heads 0" -- tfm-attend --heads 0 < pe.npy
expect_status 2 "--no-scale with --additive" -- tfm-attend --additive --no-scale < pe.npy
tfm-posenc -n 5 -d 16 > pe16.npy
expect_status 1 "params of another D" -- tfm-attend --params "$TFM_GOLDEN/attn_self_h8.safetensors" < pe16.npy
expect_err "tensor 'q_proj.weight' has shape \[32,32\], expected \[16,16\]" "param shape message"
expect_status 1 "params with a prefix that names nothing" -- tfm-attend --params "$TFM_GOLDEN/attn_self_h1.safetensors" --prefix enc. < pe16.npy
expect_err "missing tensor 'enc.q_proj.weight'" "missing tensor message"

# NaN in, NaN out (documented, as in PyTorch), exit 0.
# Tiled attention (online softmax over key blocks) gives the plain result, masks included.
tfm-posenc -n 700 -d 64 > long.npy
tfm-attend --heads 4 --causal --proj random --seed 3 < long.npy > plain.npy
expect_status 0 "--tiled" -- tfm-attend --heads 4 --causal --proj random --seed 3 --tiled < long.npy
compare plain.npy out "tiled = plain (causal, 700 positions)" --rtol 1e-5 --atol 1e-5
tfm-attend --heads 8 --key-lengths 300 < long.npy > plain.npy
expect_status 0 "--tiled with padding" -- tfm-attend --heads 8 --key-lengths 300 --tiled < long.npy
compare plain.npy out "tiled = plain (300 of 700 keys)" --rtol 1e-5 --atol 1e-5
expect_status 2 "--tiled with --weights-out" -- tfm-attend --tiled --weights-out < long.npy
expect_err "gives no attention weights" "--tiled --weights-out message"

printf '1 2\nnan 1\n3 4\n' > nan.txt
expect_status 0 "NaN input" -- tfm-attend -t < nan.txt
grep -qi nan out && ok || fail "NaN propagates"
[ "$(grep -c . out)" -eq 3 ] && ok || fail "three rows out"
finish
