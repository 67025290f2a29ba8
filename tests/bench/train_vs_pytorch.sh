#!/usr/bin/env bash
# Training throughput of tfm against PyTorch's nn.Transformer, same machine, same run, for the
# small and base presets (V=8000, 128 pairs x 16 tokens per update, Adam, label smoothing):
# tfm in float32 and, where the CPU has bf16 units, bfloat16 mixed precision; PyTorch in float32
# and under torch.autocast("cpu", dtype=torch.bfloat16).
#   tests/bench/train_vs_pytorch.sh [BUILD_DIR] [PRESETS]      (PRESETS default "small base")
# Both engines use the same OpenBLAS for float32, so OPENBLAS_CORETYPE (if the environment sets
# it) picks the kernels of both; tfm-bench's machine line names them. To let OpenBLAS choose:
#   env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE tests/bench/train_vs_pytorch.sh
# On a CPU without bf16 units tfm runs float32 only (auto falls back) and PyTorch's autocast
# still runs, emulated and slow: its figure there says nothing about bf16 hardware.
set -eu
build=${1:-build}
presets=${2:-small base}
here=$(dirname "$0")
for preset in $presets; do
    echo "== tfm, $preset"
    "$build/bin/tfm-bench" train --preset "$preset" --compute-type float32,auto --reps 5
    echo "== PyTorch $( /usr/bin/python3 -c 'import torch; print(torch.__version__)' ) nn.Transformer, $preset"
    for cast in none bf16; do
        /usr/bin/python3 "$here/pytorch_train.py" --threads "$(nproc)" --preset "$preset" --autocast $cast
    done
done
