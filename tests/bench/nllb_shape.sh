#!/usr/bin/env bash
# Decoding speed and memory of a model of NLLB-200-distilled-600M's shape (12+12 layers, d 1024,
# FFN 4096, vocabulary 256,206; random weights from make_nllb_shape.py), with and without a
# vocabulary shortlist (the 2,000 first target ids, as --shortlist FILE 2000 50 with an empty
# lexical table: the output layer's cost at a shortlist's size), per compute type this CPU runs: whole tfm-translate processes, seconds,
# generated tokens per second, peak RSS (GNU time), and the load alone (tfm-info).
# Usage: tests/bench/nllb_shape.sh [MODEL_DIR [SENTENCES]]   (MODEL_DIR made when missing)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=${TFM_BIN:-$here/../../build/bin}
dir=${1:-/tmp/tfm-nllb600}
n=${2:-16}
[ -f "$dir/model.safetensors" ] || /usr/bin/python3 "$here/make_nllb_shape.py" "$dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for i in $(seq 1 "$n"); do echo "ein Hund rennt am See und der Mann spielt mit dem Ball im Park ."; done > "$work/src"
echo "load: $( { /usr/bin/time -f '%e s, peak RSS %M KB' "$bin/tfm-info" -m "$dir" > /dev/null; } 2>&1 | tail -1)"
printf '%-10s %-5s %-16s %9s %10s %14s\n' compute beam output seconds tokens/s "peak RSS MB"
for ct in float32 bfloat16 int8; do
    for beam in 1 4; do
        for short in none "first 2000"; do
            args=(-m "$dir" --source-lang deu_Latn --target-lang eng_Latn --beam "$beam" --max-length 24
                  --compute-type "$ct" --output-ids)
            [ "$short" = none ] || args+=(--shortlist "$work/empty.lex" 2000 50)
            : > "$work/empty.lex"
            if ! /usr/bin/time -f '%e %M' -o "$work/time" "$bin/tfm-translate" "${args[@]}" < "$work/src" \
                > "$work/out" 2> "$work/err"; then
                printf '%-10s %-5s %-16s %s\n' "$ct" "$beam" "$short" "skipped: $(head -c 100 "$work/err")"
                continue
            fi
            read -r secs rss < "$work/time"
            tokens=$(wc -w < "$work/out")
            printf '%-10s %-5s %-16s %9s %10.1f %14d\n' "$ct" "$beam" "$short" "$secs" \
                "$(echo "$tokens / $secs" | bc -l)" "$((rss / 1024))"
        done
    done
done
