#!/usr/bin/env bash
# tfm-view's page sizes and render times in headless Chromium: the shipped model on a short
# sentence, and a 40-token sentence through a 6-layer, 8-head, 512-wide model (tfm-init's base
# preset, random weights, its output held to 40 tokens). Needs chromium and python3-numpy.
#   tests/bench/view_pages.sh [BUILD_DIR]        (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "${1:-$root/build}" && pwd)/bin
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
spm="$root/share/models/multi30k-de-en/source.spm"
"$bin/tfm-init" -o base6 --preset base --spm "$spm" > /dev/null
long='Eine Gruppe von Männern lädt Baumwolle auf einen Lastwagen im alten Hafen , während ein Mann mit einem roten Hut und einer blauen Jacke daneben steht und den Arbeitern still zusieht .'
printf '%s\n' "$long" | "$bin/tfm-encode" -m base6 --pieces-out pieces.txt > /dev/null
echo "the long sentence: $(( $(wc -w < pieces.txt) )) source tokens (eos included)"
echo 'Ein Mann mit einem roten Hut fährt Fahrrad.' | "$bin/tfm-view" -o shipped.html
printf '%s\n' "$long" | "$bin/tfm-view" -m base6 --max-tokens 40 -o base6.html 2> /dev/null
printf '%s\n' "$long" | "$bin/tfm-view" -m base6 --max-tokens 40 --precision float32 -o base6-f32.html 2> /dev/null
/usr/bin/python3 "$root/tests/cli/view_page.py" measure shipped.html base6.html base6-f32.html
