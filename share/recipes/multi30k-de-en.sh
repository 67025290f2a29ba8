#!/usr/bin/env bash
# Trains the shipped German->English model on Multi30k (task 1) and scores it on test_2016_flickr
# (the shipped one: 2065 updates, 16 epochs, the mean of the last 4 checkpoints, BLEU 40.48 beam 4).
#   share/recipes/multi30k-de-en.sh CORPUS_DIR [RUN_DIR] [EPOCHS]
# CORPUS_DIR holds train.{de,en}.gz, val.{de,en}.gz and test_2016_flickr.{de,en}.gz. The run
# directory keeps checkpoints: run the script again to resume after a stop (Ctrl-C saves).
# Tools are taken from PATH, or from build/bin when this is a built source tree.
set -euo pipefail
corpus=${1:?usage: multi30k-de-en.sh CORPUS_DIR [RUN_DIR] [EPOCHS]}
run=${2:-runs/multi30k-de-en}
epochs=${3:-16}
here=$(cd "$(dirname "$0")/../.." && pwd)
[ -x "$here/build/bin/tfm-train" ] && PATH="$here/build/bin:$PATH"
for f in train.de.gz train.en.gz val.de.gz val.en.gz test_2016_flickr.de.gz test_2016_flickr.en.gz; do
    [ -f "$corpus/$f" ] || { echo "multi30k-de-en.sh: $corpus/$f is missing" >&2; exit 1; }
done
resume=()
[ -f "$run/config.json" ] && resume=(--resume)
[ ${#resume[@]} -eq 0 ] && new=(--preset small --vocab-size 8000) || new=()
# The paper's recipe at the scale of a 29,000-sentence corpus: the small preset (N=3, D=256,
# H=4, F=1024), shared 8000-piece vocabulary, ~4096 tokens per batch, a shorter warmup.
tfm-train --src "$corpus/train.de.gz" --tgt "$corpus/train.en.gz" \
    --valid-src "$corpus/val.de.gz" --valid-tgt "$corpus/val.en.gz" -o "$run" "${new[@]}" "${resume[@]}" \
    --batch-tokens 4096 --warmup 1000 --epochs "$epochs" --save-every 250 --valid-every 500 --log-every 50 \
    --average-last 4
zcat "$corpus/test_2016_flickr.de.gz" | tfm-translate -m "$run" --beam 4 > "$run/test_2016_flickr.hyp.en"
echo "test_2016_flickr (beam 4): $(tfm-bleu "$corpus/test_2016_flickr.en.gz" -i "$run/test_2016_flickr.hyp.en")"
