#!/usr/bin/env bash
# tfm-bleu against sacreBLEU on the same test set, BLEU + chrF + TER together, side by side:
#   SACREBLEU_SRC=/path/to/sacrebleu tests/bench/sacrebleu_speed.sh CORPUS_DIR [LINES] [TFM_BIN]
# CORPUS_DIR holds Multi30k's train.de.gz. The LINES references (default 1,000,000) join two
# of its sentences each (29,000 of them, so that no line repeats for sacreBLEU's caches to
# reuse); the hypotheses are the references with words dropped, swapped and replaced
# (awk, seeded). sacreBLEU keeps every reference's n-grams in memory: with all three metrics it
# is killed for memory past a few hundred thousand lines on a 24 GB machine, so it scores the
# set in chunks of CHUNK lines (default 100,000), one process after another, and its time is
# their sum; tfm-bleu scores the whole set at once, then each chunk, whose scores must equal
# sacreBLEU's. Prints the wall times and the ratios.
set -eu
corpus=${1:?usage: SACREBLEU_SRC=... $0 CORPUS_DIR [LINES] [TFM_BIN]}
lines=${2:-1000000}
bin=${3:-$(cd "$(dirname "$0")/../.." && pwd)/build/bin}
: "${SACREBLEU_SRC:?set SACREBLEU_SRC to a sacreBLEU checkout}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
zcat "$corpus/train.de.gz" | awk -v N="$lines" -v REF="$work/ref.txt" -v HYP="$work/hyp.txt" '
BEGIN { srand(50) }
{ line[NR] = $0 }
END {
    for (i = 0; i < N; i++) {
        ref = line[i % NR + 1] " " line[(i * 7919 + 13) % NR + 1]
        m = split(ref, w, " ")
        hyp = ""
        for (k = 1; k <= m; k++) {
            r = rand()
            if (r < 0.08) continue
            word = w[k]
            if (r < 0.16 && k < m) { t = w[k + 1]; w[k + 1] = word; word = t }
            else if (r < 0.22) word = w[int(rand() * m) + 1]
            hyp = hyp (hyp == "" ? "" : " ") word
        }
        print ref > REF
        print hyp > HYP
    }
}'
chunk=${CHUNK:-100000}
seconds() { local s; s=$(date +%s.%N); "$@" > "$work/out" 2> "$work/err" || { echo "failed: $*" >&2; cat "$work/err" >&2; exit 1; }
            awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
[ -f "$SACREBLEU_SRC/sacrebleu/version.py" ] || echo "__version__ = '2.6.0'" > "$SACREBLEU_SRC/sacrebleu/version.py"
echo "$lines lines, $(wc -w < "$work/ref.txt") reference words; $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
t1=$(seconds env TFM_THREADS=1 "$bin/tfm-bleu" "$work/ref.txt" -i "$work/hyp.txt" -m bleu,chrf,ter -w 4)
echo "tfm-bleu, 1 thread:  $t1 s"; sed 's/^ */  /' "$work/out"
tn=$(seconds "$bin/tfm-bleu" "$work/ref.txt" -i "$work/hyp.txt" -m bleu,chrf,ter -w 4)
echo "tfm-bleu, $(nproc) threads: $tn s"
split -l "$chunk" -d -a 3 "$work/ref.txt" "$work/ref."
split -l "$chunk" -d -a 3 "$work/hyp.txt" "$work/hyp."
ts=0 differ=0
for r in "$work"/ref.[0-9]*; do
    h=$work/hyp.${r##*.}
    t=$(seconds env PYTHONPATH="$SACREBLEU_SRC" /usr/bin/python3 -m sacrebleu "$r" -i "$h" -m bleu chrf ter -w 4 -b -q)
    ours=$("$bin/tfm-bleu" "$r" -i "$h" -m bleu,chrf,ter -w 4 -b | xargs)
    theirs=$(tr -d '[],' < "$work/out" | xargs)  # sacreBLEU writes [ a, b, c ]
    [ "$ours" = "$theirs" ] || { differ=$((differ + 1)); echo "chunk ${r##*.}: sacreBLEU $theirs, tfm $ours"; }
    echo "sacreBLEU, chunk ${r##*.}: $t s (BLEU chrF TER: $theirs)"
    ts=$(awk -v a="$ts" -v b="$t" 'BEGIN { printf "%.1f", a + b }')
done
echo "sacreBLEU, all chunks: $ts s; chunks whose scores differ: $differ"
awk -v a="$ts" -v b="$t1" -v c="$tn" 'BEGIN { printf "sacreBLEU / tfm-bleu: %.1fx on 1 thread, %.1fx on all\n", a / b, a / c }'
