#!/usr/bin/env bash
# Scoring throughput next to translation throughput, one run, the same model and sentences:
# tfm-score of the reference translations (teacher-forced, one pass per batch) against
# tfm-translate with beam 4 (the default) and greedy search. Sentences per second, best of 3.
#   tests/bench/score_vs_translate.sh CORPUS_DIR [BUILD_DIR] [MODEL_DIR] [SET]
# CORPUS_DIR holds SET.de.gz and SET.en.gz (Multi30k; SET defaults to test_2016_flickr).
set -eu
corpus=$1
build=$(cd "${2:-build}" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
model=${3:-$src/share/models/multi30k-de-en}
set=${4:-test_2016_flickr}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
zcat "$corpus/$set.de.gz" > "$work/src"
zcat "$corpus/$set.en.gz" > "$work/tgt"
n=$(wc -l < "$work/src")
best() {  # best LABEL INPUT command...: best wall time of 3 runs on INPUT, and sentences per second
    local label=$1 input=$2 t b=
    shift 2
    for _ in 1 2 3; do
        t=$( { /usr/bin/time -f "%e" "$@" < "$input" > /dev/null; } 2>&1 | tail -1)
        if [ -z "$b" ] || awk "BEGIN { exit !($t < $b) }"; then b=$t; fi
    done
    printf '%-40s %7.2f s  %8.1f sentences/s\n' "$label" "$b" "$(awk "BEGIN { print $n / $b }")"
}
echo "$n sentences of $set, model $model, $(nproc) CPUs"
best "tfm-score (references)" /dev/null "$build/bin/tfm-score" -m "$model" "$work/src" "$work/tgt"
best "tfm-translate --beam 4" "$work/src" "$build/bin/tfm-translate" -m "$model" --beam 4
best "tfm-translate --beam 1" "$work/src" "$build/bin/tfm-translate" -m "$model" --beam 1
