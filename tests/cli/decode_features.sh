#!/usr/bin/env bash
# Sampling and forced prefixes in tfm-translate and tfm-decode (the shipped model): top-k 1 is
# greedy; samples depend on --seed and the line only (not batch size, window or threads);
# --n-best K gives K samples; a prefix starts its line's output, in both tools alike; bad
# combinations and prefix files are refused.
. "$(dirname "$0")/lib.sh"
cat > in.de <<'TXT'
Ein Hund rennt über die Wiese .
Zwei Männer sitzen an einem Tisch .

Eine Frau mit einem roten Hut liest ein Buch .
Kinder spielen im Wasser am Strand .
TXT
n=$(wc -l < in.de)
expect_status 0 "greedy" -- tfm-translate --beam 1 < in.de
cp out greedy.txt
expect_status 0 "top-k 1" -- tfm-translate --sampling-topk 1 --seed 9 < in.de
cmp -s out greedy.txt && ok || fail "top-k 1 is not greedy: $(diff out greedy.txt | head -4)"
expect_status 0 "sampling" -- tfm-translate --sample --temperature 1.5 --seed 4 < in.de
cp out s4.txt
[ "$(wc -l < s4.txt)" -eq "$n" ] && [ -z "$(sed -n 3p s4.txt)" ] && ok || fail "sampled lines: $(cat s4.txt)"
expect_status 0 "sampling, batch 1, window 1, one thread" -- \
    tfm-translate --sample --temperature 1.5 --seed 4 --batch-size 1 --window 1 --threads 1 < in.de
cmp -s out s4.txt && ok || fail "samples depend on batches or threads: $(diff out s4.txt | head -4)"
expect_status 0 "sampling through encode | decode" -- \
    bash -c 'tfm-encode < in.de | tfm-decode --sample --temperature 1.5 --seed 4 --batch-size 2'
cmp -s out s4.txt && ok || fail "encode | decode samples otherwise: $(diff out s4.txt | head -4)"
expect_status 0 "another seed" -- tfm-translate --sample --temperature 1.5 --seed 5 < in.de
cmp -s out s4.txt && fail "seeds 4 and 5 gave the same samples" || ok
expect_status 0 "--n-best 5 samples" -- tfm-translate --sample --n-best 5 --seed 1 < in.de
[ "$(grep -c '^0 ||| ' out)" -eq 5 ] && [ "$(grep -c '^2 ||| ' out)" -eq 1 ] && ok || fail "n-best samples: $(head -6 out)"
awk -F' [|][|][|] ' '$1 == p && $4 + 0 > s + 1e-9 { bad = 1 } { p = $1; s = $4 + 0 } END { exit bad }' out && ok \
    || fail "samples not sorted by score: $(head -6 out)"
# prefixes
printf 'A cat\n\n\nA man\nThe\n' > prefix.txt
expect_status 0 "--prefix-file" -- tfm-translate --prefix-file prefix.txt < in.de
cp out prefixed.txt
[ "$(sed -n 1p out | cut -c1-5)" = "A cat" ] && [ "$(sed -n 4p out | cut -c1-5)" = "A man" ] && [ "$(sed -n 5p out | cut -c1-3)" = "The" ] \
    && ok || fail "prefixes not kept: $(cat out)"
[ "$(sed -n 2p out)" = "$(tfm-translate < in.de | sed -n 2p)" ] && ok || fail "an empty prefix changed line 2"
expect_status 0 "--prefix-file in tfm-decode" -- bash -c 'tfm-encode < in.de | tfm-decode --prefix-file prefix.txt'
cmp -s out prefixed.txt && ok || fail "tfm-decode prefixes otherwise: $(diff out prefixed.txt | head -4)"
expect_status 0 "prefix with sampling" -- tfm-translate --prefix-file prefix.txt --sample --seed 2 < in.de
[ "$(sed -n 1p out | cut -c1-5)" = "A cat" ] && ok || fail "sampled prefix: $(head -1 out)"
head -2 prefix.txt > short.txt
expect_status 1 "a prefix file shorter than the input" -- tfm-translate --prefix-file short.txt < in.de
expect_err "short.txt: ends after line 2, before the input does" "short prefix file message"
(cat prefix.txt; echo extra) > long.txt
expect_status 1 "a prefix file longer than the input" -- tfm-translate --prefix-file long.txt < in.de
expect_err "long.txt: more lines than the input's 5" "long prefix file message"
[ "$(wc -l < out)" -eq "$n" ] && ok || fail "translations before the prefix error: $(wc -l < out)"
expect_status 1 "a missing prefix file" -- tfm-translate --prefix-file nothere.txt < in.de
# --format jsonl: one object per line, the same translation as text, consistent numbers
expect_status 0 "--format jsonl" -- tfm-translate --format jsonl --n-best 3 < in.de
python3 - out <<'PY' > check.txt 2>&1 && ok || fail "jsonl: $(cat check.txt)"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
assert [r["line"] for r in rows] == [1, 2, 3, 4, 5], [r["line"] for r in rows]
for r in rows:
    assert len(r["n_best"]) == (3 if r["ids"] else 1), r
    assert r["n_best"][0]["translation"] == r["translation"]
    for h in r["n_best"]:
        assert len(h["ids"]) == len(h["tokens"])
        assert len(h["token_logprobs"]) == len(h["ids"]) + (1 if h["finished"] else 0)
        assert abs(sum(h["token_logprobs"]) - h["logprob"]) < 1e-4, h
    scores = [h["score"] for h in r["n_best"]]
    assert scores == sorted(scores, reverse=True), scores
assert rows[2]["translation"] == "" and rows[2]["ids"] == []
PY
expect_status 0 "text for comparison" -- tfm-translate < in.de
python3 -c "
import json, sys
a = [json.loads(l)['translation'] for l in open(sys.argv[1], encoding='utf-8')]
b = open(sys.argv[2], encoding='utf-8').read().split('\n')[:-1]
sys.exit(a != b)" <(tfm-translate --format jsonl < in.de) out && ok || fail "jsonl translations differ from text"

# usage errors
expect_status 2 "--beam with sampling" -- tfm-translate --sample --beam 4 < in.de
expect_err "beam and sampling" "--beam with sampling message"
expect_status 2 "--seed without sampling" -- tfm-translate --seed 3 < in.de
expect_err "seed is for sampling" "--seed message"
expect_status 2 "--sampling-topp 0" -- tfm-translate --sampling-topp 0 < in.de
expect_status 2 "--temperature 0" -- tfm-translate --temperature 0 < in.de
expect_status 2 "--sampling-topp nan" -- tfm-translate --sampling-topp nan < in.de
finish
