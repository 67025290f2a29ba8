#!/usr/bin/env bash
# Training throughput of tfm against PyTorch's nn.Transformer, same machine, same run:
# 3+3 layers, D=256, H=4, F=1024, V=8000, 128 pairs x 16 tokens per update, Adam, label smoothing.
#   tests/bench/train_vs_pytorch.sh [BUILD_DIR]
# Both engines use the same OpenBLAS, so OPENBLAS_CORETYPE (if the environment sets it) picks
# the kernels of both; tfm-bench's machine line names them. To let OpenBLAS choose for the CPU:
#   env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE tests/bench/train_vs_pytorch.sh
set -eu
build=${1:-build}
here=$(dirname "$0")
echo "== tfm"
"$build/bin/tfm-bench" train --reps 5
echo "== PyTorch $( /usr/bin/python3 -c 'import torch; print(torch.__version__)' ) nn.Transformer"
/usr/bin/python3 "$here/pytorch_train.py" --threads "$(nproc)"
