#!/usr/bin/env bash
# Batch translation sharded by GNU parallel against one process, same machine, same run:
# one tfm-translate with all CPUs as threads, against `parallel --pipe -k -j J` of
# tfm-translate --threads 1 over blocks of a quarter of the input per job. Prints sentences/s
# of both and checks that the translations are the same bytes.
#   tests/bench/parallel_translate.sh CORPUS_DIR [BUILD_DIR] [BEAM]
# CORPUS_DIR holds test_2016_flickr.de.gz (Multi30k); the shipped de->en model translates.
set -euo pipefail
corpus=${1:?usage: parallel_translate.sh CORPUS_DIR [BUILD_DIR] [BEAM]}
build=${2:-build}
beam=${3:-4}
jobs=$(nproc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
zcat "$corpus/test_2016_flickr.de.gz" > "$work/in.de"
lines=$(wc -l < "$work/in.de")
block=$(( $(wc -c < "$work/in.de") / (4 * jobs) + 1 ))
t0=$(date +%s.%N)
"$build/bin/tfm-translate" --beam "$beam" --threads "$jobs" < "$work/in.de" > "$work/one.en"
t1=$(date +%s.%N)
parallel --will-cite --pipe -k --block "$block" -j "$jobs" "$build/bin/tfm-translate" --beam "$beam" --threads 1 \
    < "$work/in.de" > "$work/sharded.en"
t2=$(date +%s.%N)
awk -v n="$lines" -v a="$t0" -v b="$t1" -v c="$t2" -v j="$jobs" -v k="$beam" -v blk="$block" 'BEGIN {
    one = n / (b - a); par = n / (c - b);
    printf "beam %d, %d sentences: 1 process x %d threads %.1f sentences/s; parallel -j %d --block %d x 1 thread %.1f sentences/s (%.2fx)\n",
           k, n, j, one, j, blk, par, par / one }'
cmp -s "$work/one.en" "$work/sharded.en" && echo "the same translations, byte for byte" || echo "OUTPUTS DIFFER"
