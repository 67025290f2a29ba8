#!/usr/bin/env bash
# tfm-plot: heatmaps of positional encodings and attention weights, PNG and SVG; several
# records make numbered files; bad input is refused without writing anything.
. "$(dirname "$0")/lib.sh"
png_size() {  # width height from the IHDR chunk
    od -An -tu1 -j16 -N8 "$1" | awk '{ print $1*16777216 + $2*65536 + $3*256 + $4, $5*16777216 + $6*65536 + $7*256 + $8 }'
}
expect_status 0 "positional encodings as PNG" -- bash -c 'tfm-posenc -n 100 -d 128 | tfm-plot -o pe.png --bare'
[ "$(head -c 8 pe.png | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] && ok || fail "PNG signature"
[ "$(png_size pe.png)" = "256 200" ] && ok || fail "--bare: 100 x 128 cells of 2 px: $(png_size pe.png)"
expect_status 0 "--cell" -- bash -c 'tfm-posenc -n 10 -d 16 | tfm-plot -o small.png --cell 3 --bare'
[ "$(png_size small.png)" = "48 30" ] && ok || fail "--cell 3: $(png_size small.png)"
# Without --bare, the colour scale at the right (and titles and labels when there are)
expect_status 0 "a PNG with its colour scale" -- bash -c 'tfm-posenc -n 10 -d 16 | tfm-plot -o scaled.png --cell 3'
read -r w h < <(png_size scaled.png)
[ "$w" -gt 48 ] && [ "$h" -ge 40 ] && ok || fail "colour scale beside 48 x 30 cells: $w x $h"
# Attention weights [H,Tq,Tk]: one panel per head in a 2 x 2 grid (4 px gaps), labels in SVG and PNG.
tfm-posenc -n 6 -d 16 | tfm-attend --heads 4 --causal --weights-out > both.npy
expect_status 0 "two records, numbered files" -- tfm-plot -o attn.png --cell 10 --bare < both.npy
[ -f attn-1.png ] && [ -f attn-2.png ] && [ ! -e attn.png ] && ok || fail "attn-1.png attn-2.png: $(ls)"
[ "$(png_size attn-2.png)" = "124 124" ] && ok || fail "4 heads of 6 x 6 cells: $(png_size attn-2.png)"
expect_err "2 records: wrote attn-1.png ... attn-2.png" "names on stderr"
printf 'a b c d e f g h i j k l m n o p\nich bin ein Berliner , ja\n' > labels.txt
expect_status 0 "PNG with titles and labels" -- tfm-plot -o lab.png --cell 10 --labels labels.txt < both.npy
read -r w h < <(png_size lab-2.png)
[ "$w" -gt 150 ] && [ "$h" -gt 150 ] && ok || fail "titles, labels and scale around 124 x 124 cells: $w x $h"
expect_status 0 "SVG with labels" -- tfm-plot -o attn.svg --labels labels.txt < both.npy
grep -q '>Berliner</text>' attn-2.svg && grep -q '>head 3</text>' attn-2.svg && ok || fail "SVG labels and titles"
grep -q '>p</text>' attn-1.svg && ok || fail "first record's labels"
# The README's pipeline: a sentence's encoder self-attention with its pieces as labels.
model="$TFM_SOURCE/share/models/multi30k-de-en"
expect_status 0 "tfm-encode --attention-out - | tfm-plot" -- bash -c \
    "printf 'Ein Hund rennt.\nZwei Katzen.\n' | tfm-encode -m '$model' --attention-out - --attention-layers 0,2 --pieces-out tok.txt | tfm-plot -o enc.svg --labels tok.txt"
[ "$(wc -l < tok.txt)" -eq 4 ] && ok || fail "one label line per attention record (2 lines x 2 layers): $(cat tok.txt)"
grep -q '>▁Hund</text>' enc-1.svg && grep -q '>▁Zwei</text>' enc-4.svg && grep -q '>head 3</text>' enc-1.svg && ok ||
    fail "labels and panels: $(ls enc*)"
printf 'Ein Hund rennt.\n' | tfm-encode -m "$model" --attention-out - | tfm-cat --info > info.txt
[ "$(grep -c 'float32 \[4,' info.txt)" -eq 3 ] && [ "$(wc -l < info.txt)" -eq 3 ] && ok || fail "stdout holds the 3 layers' weights only: $(cat info.txt)"

# Bad input: nothing written.
expect_status 2 "unknown extension" -- tfm-plot -o x.jpg < both.npy
printf '1 2 3\n' > vec.txt
expect_status 1 "a vector" -- bash -c 'tfm-cat < vec.txt | tfm-cat --format text | sed "1i # shape: 3" | tfm-plot -o v.png'
expect_err "record 1: a heatmap needs \[R,C\]" "rank message"
[ ! -e v.png ] && ok || fail "nothing written on error"
expect_status 1 "empty input" -- tfm-plot -o e.png < /dev/null
expect_err "no records on stdin" "empty message"
expect_status 1 "truncated input" -- bash -c 'head -c 100 both.npy | tfm-plot -o t.png'
[ ! -e t.png ] && [ ! -e t-1.png ] && ok || fail "nothing written on a truncated stream"
finish
