#!/usr/bin/env bash
# Batch translation sharded by GNU parallel (parallel --pipe -k): for several block sizes the
# output is byte for byte what one process writes, empty lines included, because every tool
# maps line i to line i and a sentence's translation does not depend on its neighbours. One
# shard that fails fails the whole pipeline, loudly.
. "$(dirname "$0")/lib.sh"
command -v parallel >/dev/null || { echo "SKIP: GNU parallel is not installed (make deps installs it)"; exit 77; }
model="$TFM_SOURCE/share/models/multi30k-de-en"
[ -f "$model/model.safetensors" ] || { echo "SKIP: no shipped model"; exit 77; }

# German-looking lines from a few words, with empty and blank lines among them.
awk 'BEGIN { srand(11); split("ein eine der die das Mann Frau Hund Kinder spielt läuft sitzt auf im am Park Wasser Straße rot großen kleine mit", w, " ");
     for (i = 0; i < 160; i++) {
        if (i % 23 == 5) { print ""; continue }
        if (i % 41 == 7) { print "   "; continue }
        k = 3 + int(rand() * 8); s = "";
        for (j = 0; j < k; j++) s = s (j ? " " : "") w[1 + int(rand() * 22)]; print s "." } }' > in.de
expect_status 0 "one process" -- bash -c "tfm-translate -m '$model' --beam 1 --threads 2 < in.de > single.en"
[ "$(wc -l < single.en)" -eq 160 ] && ok || fail "one process wrote $(wc -l < single.en) lines for 160"
blocks=(2k 5k 13k)
[ "${TFM_SANITIZE:-0}" = 1 ] && blocks=(3k)  # slower under the sanitizers: one block size
for block in "${blocks[@]}"; do
    expect_status 0 "parallel --block $block" -- bash -c "parallel --will-cite --pipe -k --block $block -j 2 \
        --halt now,fail=1 tfm-translate -m '$model' --beam 1 --threads 1 < in.de > sharded.en"
    cmp -s single.en sharded.en && ok || fail "--block $block: sharded output differs: $(diff single.en sharded.en | head -4)"
done
# More shards than jobs, beam search, scores.
expect_status 0 "one process, beam 2 with scores" -- bash -c "tfm-translate -m '$model' --beam 2 --scores --threads 2 < in.de > single2.en"
expect_status 0 "parallel, beam 2 with scores" -- bash -c "parallel --will-cite --pipe -k --block 1k -j 2 --halt now,fail=1 \
    tfm-translate -m '$model' --beam 2 --scores --threads 1 < in.de > sharded2.en"
# The translations are the same bytes; a score may differ in its last digit, as between
# batch sizes in one process (a row's rounding depends on its place in a product).
cmp -s <(cut -f2 single2.en) <(cut -f2 sharded2.en) && ok || fail "beam 2: sharded translations differ: $(diff single2.en sharded2.en | head -4)"
paste single2.en sharded2.en | awk -F'\t' '{ d = $1 - $3; if (d < 0) d = -d; if (d > 1e-5) bad++ } END { exit bad > 0 }' &&
    ok || fail "beam 2: scores differ by more than 1e-5"

# One bad shard: a line too long for --strict in the middle. The pipeline fails: by default
# parallel runs every shard and exits with the number that failed, the shard's own message
# on stderr (its line numbers count within the shard); with --halt now,fail=1 it stops at once.
{ head -80 in.de; printf 'Hund %.0s' $(seq 400); echo; tail -80 in.de; } > bad.de
expect_status 1 "one process refuses the long line" -- bash -c "tfm-translate -m '$model' --beam 1 --strict --max-input-length 64 < bad.de > /dev/null"
expect_err '^tfm-translate: error: line 81: 401 tokens, more than --max-input-length 64$' "one process's message"
expect_status 1 "a failing shard fails the pipeline" -- bash -c "parallel --will-cite --pipe -k --block 2k -j 2 \
    tfm-translate -m '$model' --beam 1 --threads 1 --strict --max-input-length 64 < bad.de > part.en"
expect_err '^tfm-translate: error: line [0-9]+: 401 tokens, more than --max-input-length 64$' "the shard's message"
expect_status 1 "--halt now,fail=1 stops at the failing shard" -- bash -c "timeout 60 parallel --will-cite --pipe -k \
    --block 2k -j 2 --halt now,fail=1 tfm-translate -m '$model' --beam 1 --threads 1 --strict --max-input-length 64 \
    < bad.de > part.en"
expect_err 'parallel: This job failed' "parallel's message"
finish
