#!/usr/bin/env bash
# Load time and peak memory of a base-size OPUS-MT model (~74M parameters, random weights:
# tests/bench/make_opus_base.py) from pytorch_model.bin (torch.save's legacy format, as the
# 2020 uploads), from a Marian .npz release (tfm-marian import, then the model it wrote) and
# from safetensors (tfm-export of the first); and translation from each, which must be the
# same output at the same speed.
#   tests/bench/opus_load.sh [BUILD_DIR] [WORK_DIR]     (needs python3-torch to make the model)
set -eu
build=$(cd "${1:-build}" && pwd)
work=${2:-$(mktemp -d)}
src=$(cd "$(dirname "$0")/../.." && pwd)
bin=$build/bin
[ -d "$work/hf" ] || /usr/bin/python3 "$src/tests/bench/make_opus_base.py" "$work" "$src/share/models/multi30k-de-en"
cd "$work"
rm -rf safetensors imported
measure() {  # measure LABEL command...: wall seconds and peak RSS of the command
    local label=$1
    shift
    /usr/bin/time -f "%e %M" -o time.txt "$@" > /dev/null
    read -r secs kb < time.txt
    printf '%-44s %6.2f s  %6d MB\n' "$label" "$secs" $((kb / 1024))
}
"$bin/tfm-export" -m hf -o safetensors
echo "file sizes: pytorch_model.bin $(du -m hf/pytorch_model.bin | cut -f1) MB, npz $(du -m marian/*.npz | cut -f1) MB, safetensors $(du -m safetensors/model.safetensors | cut -f1) MB"
for i in 1 2 3; do
    measure "load pytorch_model.bin (legacy pickle)" "$bin/tfm-translate" -m hf < /dev/null
    measure "load model.safetensors (mmap)" "$bin/tfm-translate" -m safetensors < /dev/null
    rm -rf imported
    measure "tfm-marian import (npz + vocab.yml)" "$bin/tfm-marian" import marian -o imported
    measure "load the imported directory" "$bin/tfm-translate" -m imported < /dev/null
done
zcat -f "$src/tests/golden/data/opus_base_lines.tsv" > /dev/null
printf 'Ein Hund läuft über die Wiese .\nZwei Männer sitzen am Tisch und reden .\n' > one.txt
for i in $(seq 16); do cat one.txt; done > in.txt
for i in 1 2 3; do
    for m in hf safetensors imported; do
        measure "translate 32 lines, greedy, max 30 tokens: $m" "$bin/tfm-translate" -m "$m" --beam 1 --max-length 30 < in.txt
    done
done
for m in hf safetensors imported; do "$bin/tfm-translate" -m "$m" --beam 1 --max-length 30 < in.txt > "out.$m"; done
cmp out.hf out.safetensors && echo "outputs: pytorch_model.bin = safetensors"
cmp out.hf out.imported || echo "outputs: the imported model differs (LayerNorm eps 1e-6, Marian's, against transformers' 1e-5)"
