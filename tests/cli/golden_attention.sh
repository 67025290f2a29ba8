#!/usr/bin/env bash
# tfm-attend against PyTorch's F.multi_head_attention_forward (fixtures by
# tests/golden/make_golden.py): outputs and weights within rtol 1e-5, atol 1e-6.
. "$(dirname "$0")/lib.sh"
n=0
for args in "$TFM_GOLDEN"/attn_*.args; do
    name=$(basename "$args" .args)
    flags=$(cat "$args")
    params=()
    [ -f "$TFM_GOLDEN/$name.safetensors" ] && params=(--params "$TFM_GOLDEN/$name.safetensors")
    # shellcheck disable=SC2086
    expect_status 0 "$name runs" -- tfm-attend $flags "${params[@]}" < "$TFM_GOLDEN/${name}_in.npy"
    cp out "$name.npy"
    compare "$TFM_GOLDEN/${name}_out.npy" "$name.npy" "$name matches PyTorch" --rtol 1e-5 --atol 1e-6
    n=$((n + 1))
done
[ "$n" -ge 12 ] || fail "only $n golden cases found in $TFM_GOLDEN"
finish
