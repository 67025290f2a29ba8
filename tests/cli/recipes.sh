#!/usr/bin/env bash
# The recipes' choices on val (share/recipes/best.awk): the best BLEU among the settings under a
# length cap, ties to the earlier row, the shortest output when none is under it, and a loud
# error on a table it cannot read. And multi30k.sh refuses a corpus directory that lacks a file.
. "$(dirname "$0")/lib.sh"
recipes="$TFM_SOURCE/share/recipes"
# best TABLE [CAP]: as multi30k.sh calls it.
best() { awk -v cap="${2:-}" -f "$recipes/best.awk" "$1"; }

# beam alpha BLEU words: alpha 3.0 wins on BLEU but is over a cap of 11368 words.
printf '4\t1.4\t41.99\t11150\n4\t3.0\t42.17\t11426\n6\t1.8\t42.20\t11266\n6\t3.0\t42.22\t11444\n' > grid.tsv
[ "$(best grid.tsv 11368)" = "$(printf '6\t1.8\t42.20\t11266')" ] && ok || fail "capped choice: $(best grid.tsv 11368)"
[ "$(best grid.tsv)" = "$(printf '6\t3.0\t42.22\t11444')" ] && ok || fail "uncapped choice: $(best grid.tsv)"
# A row exactly at the cap is under it.
[ "$(best grid.tsv 11444 | cut -f1,2)" = "$(printf '6\t3.0')" ] && ok || fail "a row at the cap: $(best grid.tsv 11444)"
# Nothing under the cap: the fewest words, whatever their BLEU.
[ "$(best grid.tsv 100 | cut -f1,2)" = "$(printf '4\t1.4')" ] && ok || fail "none under the cap: $(best grid.tsv 100)"
# A tie on BLEU goes to the earlier row (the smaller K, beam or alpha); space-separated works too.
printf '4 41.30 9000\n8 41.30 9100\n12 41.29 9200\n' > k.tsv
[ "$(best k.tsv)" = "4 41.30 9000" ] && ok || fail "a tie: $(best k.tsv)"
# A tie on words when none is under the cap also goes to the earlier row.
printf '4 1.0 40.0 500\n5 1.0 41.0 500\n' > w.tsv
[ "$(best w.tsv 10 | cut -d' ' -f1)" = 4 ] && ok || fail "a tie on words: $(best w.tsv 10)"

# Tables it cannot read are errors, not a silent choice.
for bad in '4 41.2' '4 1.0 x 100' '4 1.0 41.2 -5' '4 1.0 41.2 nan'; do
    printf '6 1.8 42.20 11266\n%s\n' "$bad" > bad.tsv
    expect_status 1 "best.awk on '$bad'" -- best bad.tsv
    expect_err 'line 2 is not' "best.awk on '$bad'"
done
: > empty.tsv
expect_status 1 "best.awk on an empty table" -- best empty.tsv
expect_err 'no settings' "best.awk on an empty table"

# multi30k.sh checks its corpus before it trains.
mkdir corpus
for f in train val test_2016_flickr; do printf 'a b\n' | gzip > "corpus/$f.en.gz"; done
expect_status 1 "multi30k.sh without German" -- "$recipes/multi30k.sh" en de corpus run
expect_err 'corpus/train.de.gz is missing' "multi30k.sh without German"
[ ! -e run ] && ok || fail "multi30k.sh made a run directory for a corpus it refused"
expect_status 1 "multi30k.sh without arguments" -- "$recipes/multi30k.sh"
expect_err 'usage: multi30k.sh' "multi30k.sh without arguments"
finish
