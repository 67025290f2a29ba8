#!/usr/bin/env bash
# Data-parallel training against one process, same machine, same global batch, same run:
# 1 process x T threads against R ranks x (T/R) threads (mpirun), the small preset on a
# parallel corpus, STEPS updates each (the first WARM not timed). Prints tokens/s of both,
# their ratio, and the bytes each rank sent and the seconds it spent summing per update.
#   tests/bench/mpi_train.sh CORPUS_DIR [BUILD_DIR] [RANKS] [STEPS]
# CORPUS_DIR holds train.de.gz and train.en.gz (Multi30k task 1). Both runs cut batches into
# the same parts (the default, 4), so both train the same model bit for bit.
set -euo pipefail
corpus=${1:?usage: mpi_train.sh CORPUS_DIR [BUILD_DIR] [RANKS] [STEPS]}
build=${2:-build}
ranks=${3:-2}
steps=${4:-60}
warm=20
threads=$(nproc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
spm="$(dirname "$0")/../../share/models/multi30k-de-en/source.spm"
args=(--src "$corpus/train.de.gz" --tgt "$corpus/train.en.gz" --preset small --spm "$spm" --batch-tokens 4096
      --steps "$steps" --log-every "$warm" --save-every 100000 --batch-parts 4)
# tokens/s of the updates after the first $warm: the log rows' own windows.
rate() { awk -F'\t' -v w="$warm" 'NR > 1 && $1 > w { t += $8 * w; n += w } END { printf "%.0f", t / n }' "$1/metrics.tsv"; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $threads CPUs; $steps updates of ~4096 tokens, small preset"
"$build/bin/tfm-train" "${args[@]}" -o "$work/one" --threads "$threads" 2> "$work/one.log"
one=$(rate "$work/one")
echo "1 process x $threads threads: $one tokens/s"
mpirun -np "$ranks" --bind-to none "$build/bin/tfm-train" "${args[@]}" -o "$work/ranks" \
    --threads $(( threads / ranks > 0 ? threads / ranks : 1 )) 2> "$work/ranks.log"
many=$(rate "$work/ranks")
echo "$ranks ranks x $(( threads / ranks > 0 ? threads / ranks : 1 )) threads: $many tokens/s ($(awk -v a="$many" -v b="$one" 'BEGIN { printf "%.1f%%", 100 * a / b }') of one process)"
grep -o 'summing across .*' "$work/ranks.log" | tail -1 | sed 's/^/  last window: /'
cmp -s "$work/one/model.safetensors" "$work/ranks/model.safetensors" && echo "  the same weights bit for bit" ||
    echo "  weights differ (other batch parts?)"
