#!/usr/bin/env bash
# The same input, model and seed give byte-identical output, run after run and whatever the
# thread count (one pool; every product split into the same OpenBLAS calls whatever the
# thread count, docs/numerics.md): training, encoding, translation.
. "$(dirname "$0")/lib.sh"
copy_corpus 600 > corpus.txt
args=(--src corpus.txt --tgt corpus.txt --preset tiny --vocab-size 40 --batch-tokens 512 --steps 12)
TFM_THREADS=1 tfm-train "${args[@]}" -o one 2>/dev/null
TFM_THREADS=2 tfm-train "${args[@]}" -o two 2>/dev/null
TFM_THREADS=2 tfm-train "${args[@]}" -o again 2>/dev/null
cmp -s one/model.safetensors two/model.safetensors && ok || fail "training differs between 1 and 2 threads"
cmp -s two/model.safetensors again/model.safetensors && ok || fail "training differs between two runs"
cmp -s <(cut -f1-7 one/metrics.tsv) <(cut -f1-7 two/metrics.tsv) && ok || fail "loss curves differ"
head -40 corpus.txt > in.txt
for tool in "tfm-encode -m one" "tfm-translate -m one --beam 4 --scores" "tfm-translate -m one --beam 1 --n-best 1"; do
    # shellcheck disable=SC2086
    TFM_THREADS=1 $tool < in.txt > a.out
    # shellcheck disable=SC2086
    TFM_THREADS=2 $tool < in.txt > b.out
    # shellcheck disable=SC2086
    TFM_THREADS=2 $tool < in.txt > c.out
    cmp -s a.out b.out && ok || fail "$tool: 1 and 2 threads differ"
    cmp -s b.out c.out && ok || fail "$tool: two runs differ"
done

# A model large enough that its products are split between threads (the tiny one's are not):
# still the same bits for 1, 2 and 3 threads.
tfm-init -o small --preset small --spm one/source.spm --seed 5 >/dev/null 2>&1 || fail "tfm-init small"
for tool in "tfm-encode -m small" "tfm-translate -m small --beam 4 --scores --max-length-b 8"; do
    for t in 1 2 3; do
        # shellcheck disable=SC2086
        TFM_THREADS=$t $tool < in.txt > "t$t.out"
    done
    cmp -s t1.out t2.out && cmp -s t1.out t3.out && ok || fail "$tool (small preset): thread counts differ"
done
finish
