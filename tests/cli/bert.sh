#!/usr/bin/env bash
# BERT-layout models through tfm-encode and tfm-similar (the fixtures of
# tests/golden/make_bert_golden.py): one record per line in order, empty lines, --pool and
# --pairs shapes, the same vectors whatever the batching, truncation warnings and --strict,
# similarity streams and nearest neighbours, attention heatmaps, and clear errors for bad
# model directories and inputs.
. "$(dirname "$0")/lib.sh"
cp -r "$TFM_GOLDEN/bert_uncased" uncased
cp -r "$TFM_GOLDEN/bert_cased" cased
cat > in.txt <<'TXT'
The quick brown fox jumps over the lazy dog.
Hello, world!

Café déjà vu
中文字符和日本語
   
the lazy dog
TXT
n=$(wc -l < in.txt)
expect_status 0 "token vectors" -- bash -c 'tfm-encode -m uncased --pieces-out in.pieces < in.txt | tfm-cat --info'
[ "$(wc -l < out)" -eq "$n" ] && grep -q '^record 3: float32 \[0,32\]$' out && grep -q '^record 6: float32 \[0,32\]$' out \
    && [ "$(sed -n 2p in.pieces | cut -d' ' -f1)" = "[CLS]" ] && [ "$(sed -n 2p in.pieces | awk '{ print $NF }')" = "[SEP]" ] \
    && [ "$(sed -n 2p out)" = "record 2: float32 [$(sed -n 2p in.pieces | wc -w),32]" ] && ok || fail "records: $(cat out)"
for pool in cls mean pooler; do
    expect_status 0 "--pool $pool" -- bash -c "tfm-encode -m uncased --pool $pool < in.txt | tfm-cat --info"
    [ "$(grep -c 'float32 \[32\]$' out)" -eq 5 ] && grep -q '^record 3: float32 \[0\]$' out && ok || fail "--pool $pool: $(cat out)"
done
expect_status 0 "batch of 2, window 3" -- bash -c 'tfm-encode -m uncased --pool mean --batch-size 2 --window 3 < in.txt > small.npy'
tfm-encode -m uncased --pool mean < in.txt > big.npy
compare big.npy small.npy "batching changed the vectors" --atol 1e-5
expect_status 0 "cased model from pytorch_model.bin" -- bash -c 'tfm-encode -m cased --pool cls < in.txt | tfm-cat --info'
[ "$(wc -l < out)" -eq "$n" ] && ok || fail "cased: $(cat out)"
expect_status 2 "--pool pooler without pooler weights" -- tfm-encode -m cased --pool pooler < in.txt
expect_err "no pooler" "pooler message"
# pairs: segments 0 and 1
printf 'The quick brown fox\tjumps over the dog\nHello\tworld\n' > pairs.txt
expect_status 0 "--pairs" -- bash -c 'tfm-encode -m uncased --pairs --pieces-out pieces.txt < pairs.txt | tfm-cat --info'
[ "$(sed -n 2p out)" = "record 2: float32 [$(sed -n 2p pieces.txt | wc -w),32]" ] \
    && [ "$(sed -n 2p pieces.txt | tr ' ' '\n' | grep -c '^\[SEP\]$')" -eq 2 ] \
    && [ "$(sed -n 2p pieces.txt | cut -d' ' -f1)" = "[CLS]" ] && ok || fail "pairs: $(cat out) $(cat pieces.txt)"
printf 'Hello world\n' > single.txt
tfm-encode -m uncased --pool cls < single.txt > single.npy
printf 'Hello\tworld\n' | tfm-encode -m uncased --pool cls --pairs > pair.npy
tfm-similar single.npy pair.npy > sim.txt && awk '$1 > 0.99999 { exit 1 }' sim.txt && ok \
    || fail "a pair encodes like one text: $(cat sim.txt)"
expect_status 1 "--pairs without a tab" -- tfm-encode -m uncased --pairs < single.txt
expect_err "line 1: no tab" "--pairs message"
expect_status 2 "--pairs with a translation model" -- tfm-encode --pairs < single.txt
expect_status 2 "--input-ids with BERT" -- tfm-encode -m uncased --input-ids < single.txt
# long lines: cut with a warning, or refused
python3 -c "print(' '.join(['dog'] * 100))" > long.txt
expect_status 0 "a line over the positions" -- bash -c 'tfm-encode -m uncased < long.txt | tfm-cat --info'
expect_err "line 1: 102 tokens, more than the model's 40 positions; cut to 40" "cut warning"
grep -q 'float32 \[40,32\]' out && ok || fail "cut record: $(cat out)"
expect_status 1 "--strict" -- tfm-encode -m uncased --strict < long.txt
expect_status 0 "--max-input-length" -- bash -c 'tfm-encode -m uncased --max-input-length 8 < in.txt | tfm-cat --info'
grep -q '^record 1: float32 \[8,32\]$' out && ok || fail "--max-input-length: $(head -2 out)"
# similarity: record by record, nearest neighbours, with the corpus's text
expect_status 0 "tfm-similar A A" -- tfm-similar big.npy big.npy
[ "$(wc -l < out)" -eq "$n" ] && [ "$(sed -n 1p out)" = "1.000000" ] && [ -z "$(sed -n 3p out)" ] && ok || fail "A A: $(cat out)"
expect_status 0 "nearest" -- bash -c 'tfm-similar --corpus big.npy -k 3 < big.npy'
awk 'NR == 3 || NR == 6 { if ($0 != "") bad = 1; next } { split($1, a, ":"); if (a[1] != NR || NF != 3) bad = 1 }
    END { exit bad }' out && ok || fail "each line is its own nearest: $(cat out)"
expect_status 0 "nearest with text" -- bash -c 'tfm-encode -m uncased --pool mean < single.txt | tfm-similar --corpus big.npy -k 2 --corpus-text in.txt'
[ "$(wc -l < out)" -eq 2 ] && awk -F'\t' 'NF != 4 || $1 != 1 { bad = 1 } END { exit bad }' out && ok || fail "--text: $(cat out)"
expect_status 1 "token vectors are not sentence vectors" -- bash -c 'tfm-encode -m uncased < in.txt | tfm-similar --corpus big.npy'
expect_err "not a vector" "rank message"
head -3 in.txt > three.txt
expect_status 1 "--corpus-text of another length" -- bash -c 'tfm-similar --corpus big.npy --corpus-text three.txt < big.npy'
expect_status 1 "streams of different lengths" -- bash -c 'tfm-similar big.npy single.npy'
expect_status 2 "one file without --corpus" -- tfm-similar big.npy
expect_status 1 "a directory as the corpus" -- bash -c 'tfm-similar --corpus . < big.npy'
expect_err "a directory, not a stream of vectors" "directory message"
# attention of a BERT layer, drawn
expect_status 0 "attention heatmap" -- bash -c 'tfm-encode -m uncased --attention-out - --attention-layers 1 --pieces-out tok.txt < single.txt | tfm-plot -o att.svg --labels tok.txt'
[ -s att.svg ] && grep -q 'CLS' att.svg && ok || fail "heatmap: $(head -c 200 err)"
expect_status 1 "tfm-translate with a BERT model" -- tfm-translate -m uncased < single.txt
expect_err "has no decoder to translate with: tfm-encode runs it" "translate message"
# bad model directories
rm uncased/vocab.txt
expect_status 1 "no vocab.txt" -- tfm-encode -m uncased < single.txt
expect_err "missing vocab.txt" "vocab message"
cp "$TFM_GOLDEN/bert_uncased/vocab.txt" uncased/
sed -i 's/"num_hidden_layers": 2/"num_hidden_layers": 3/' uncased/config.json
expect_status 1 "a layer the weights lack" -- tfm-encode -m uncased < single.txt
expect_err "encoder.layer.2" "missing layer message"
finish
