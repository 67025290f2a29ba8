#!/usr/bin/env bash
# Training throughput of tfm against PyTorch's nn.Transformer, same machine, same run:
# 3+3 layers, D=256, H=4, F=1024, V=8000, 128 pairs x 16 tokens per update, Adam, label smoothing.
#   tests/bench/train_vs_pytorch.sh [BUILD_DIR]
set -eu
build=${1:-build}
here=$(dirname "$0")
echo "== tfm"
"$build/bin/tfm-bench" train --reps 5
echo "== PyTorch $( /usr/bin/python3 -c 'import torch; print(torch.__version__)' ) nn.Transformer"
/usr/bin/python3 "$here/pytorch_train.py" --threads "$(nproc)"
