#!/usr/bin/env bash
# Translation speed of two or more builds side by side, in one run: `tfm-bench translate` of
# each build in turn, ROUNDS times over (so that a busy neighbour slows them all alike), for
# the small and base presets, greedy and beam 4. Prints each build's median target tokens/s
# and its ratio to the first build's.
#   tests/bench/translate_before_after.sh [ROUNDS] BUILD_DIR BUILD_DIR...   (first: the reference)
# Extra tfm-bench flags go in TFM_BENCH_FLAGS (default: --threads 2 --reps 3).
# Set OPENBLAS_CORETYPE when a build predates the tools' own choice of OpenBLAS kernels
# (tools/common/blas_kernels.cpp), so that every build runs the same ones.
set -euo pipefail
rounds=3
if [[ ${1:-} =~ ^[0-9]+$ ]]; then rounds=$1; shift; fi
[ $# -ge 2 ] || { echo "usage: translate_before_after.sh [ROUNDS] BUILD_DIR BUILD_DIR..." >&2; exit 2; }
read -r -a flags <<< "${TFM_BENCH_FLAGS:---threads 2 --reps 3}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# tokens/s of one build, one preset, one beam: the tokens_per_s column of the csv row
rate() {
    local bench=$1/bin/tfm-bench preset=$2 beam=$3
    "$bench" translate --preset "$preset" --beam "$beam" --format csv "${flags[@]}" |
        awk -F, '/^#/ { next } !c { for (i = 1; i <= NF; ++i) if ($i == "tokens_per_s") c = i; next } { print $c }'
}
for ((r = 0; r < rounds; ++r)); do
    for preset in small base; do
        for beam in 1 4; do
            for ((b = 1; b <= $#; ++b)); do
                rate "${!b}" "$preset" "$beam" >> "$work/$preset.$beam.$b"
            done
        done
    done
done
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '%-14s' "model, search"
for ((b = 1; b <= $#; ++b)); do printf '  %-28s' "$(basename "$(cd "${!b}/.." && pwd)")/$(basename "${!b}")"; done
printf '\n'
for preset in small base; do
    for beam in 1 4; do
        search=greedy
        [ "$beam" = 1 ] || search="beam $beam"
        printf '%-14s' "$preset, $search"
        ref=$(median "$work/$preset.$beam.1")
        for ((b = 1; b <= $#; ++b)); do
            m=$(median "$work/$preset.$beam.$b")
            printf '  %-28s' "$(awk -v m="$m" -v r="$ref" 'BEGIN { printf "%.0f tokens/s (%.2fx)", m, m / r }')"
        done
        printf '\n'
    done
done
echo "($rounds rounds, medians; tfm-bench translate ${flags[*]}; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))"
