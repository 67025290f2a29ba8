#!/usr/bin/env bash
# Translation throughput of tfm against PyTorch's nn.Transformer, same machine, same run:
# base preset, random weights, 32 sentences x 20 source tokens, 24 target tokens each.
#   tests/bench/translate_vs_pytorch.sh [BUILD_DIR]
set -eu
build=${1:-build}
here=$(dirname "$0")
echo "== tfm (greedy and beam 4)"
"$build/bin/tfm-bench" translate --preset base --beam 1,4 --reps 3
echo "== PyTorch $( /usr/bin/python3 -c 'import torch; print(torch.__version__)' ) nn.Transformer, greedy, no cache"
/usr/bin/python3 "$here/pytorch_translate.py" --threads "$(nproc)"
