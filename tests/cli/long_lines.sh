#!/usr/bin/env bash
# One very long line costs what the model keeps of it, not more (issue 49): every text tool
# cuts (or with --strict refuses) a line past text_budget(tokens) bytes before tokenizing. The
# lines are 10 MB of what made tokenizers quadratic: characters outside the vocabulary (one
# <unk> run), alternating combining marks (canonical reordering) and a run of spaces. A
# quadratic tokenizer takes an hour on them; the 60-second limit is a bound, not a timing.
. "$(dirname "$0")/lib.sh"

# Under the sanitizers the lines are 2 MB (every byte read costs several times as much there;
# the cut is the same, 60 times the budget still).
python3 - "${TFM_SANITIZE:-0}" <<'PY'
import random, sys
random.seed(49)
k = 5 if sys.argv[1] == "1" else 1
open("unk.txt", "w").write("".join(chr(0x4e00 + random.randrange(20000)) for _ in range(3_500_000 // k)) + "\n")
open("marks.txt", "w").write("Ein Hund" + "\u0301\u0316" * (2_500_000 // k) + "\nZwei Katzen.\n")
open("spaces.txt", "w").write("Ein Hund" + " " * (10_000_000 // k) + "läuft.\n")
PY
bert="$TFM_GOLDEN/bert_uncased"
for f in unk marks spaces; do
    bytes=$(head -n 1 $f.txt | wc -c)
    expect_status 0 "tfm-encode on $f" -- bash -c "timeout 60 tfm-encode < $f.txt"
    expect_err "line 1: $((bytes - 1)) bytes, more than the 32768 read for the model's 512 positions; cut to 32768 bytes before tokenizing" \
        "tfm-encode on $f: warning"
    expect_status 0 "tfm-translate on $f" -- bash -c "timeout 60 tfm-translate --beam 1 < $f.txt"
    expect_err "cut to 32768 bytes before tokenizing" "tfm-translate on $f: warning"
    [ "$(wc -l < out)" -eq "$(wc -l < $f.txt)" ] && ok || fail "tfm-translate on $f: $(wc -l < out) lines out"
    expect_status 1 "tfm-translate --strict on $f" -- bash -c "timeout 60 tfm-translate --beam 1 --strict < $f.txt"
    expect_err "line 1: $((bytes - 1)) bytes, more than the 32768 read for the model's 512 positions$" "--strict on $f"
    expect_status 0 "BERT tfm-encode on $f" -- bash -c "timeout 60 tfm-encode -m $bert --pool mean < $f.txt"
    expect_err "cut to 2560 bytes before tokenizing" "BERT on $f: warning"
    paste $f.txt $f.txt > pairs.txt
    expect_status 1 "tfm-score on $f" -- timeout 60 tfm-score pairs.txt
    expect_err "line 1: source of $((bytes - 1)) bytes, more than the 32768 read for the model's 512 positions" "tfm-score on $f"
    expect_status 0 "tfm-bleu on $f" -- timeout 60 tfm-bleu $f.txt -i $f.txt
done
# What is kept is the line's start: a cut line translates as its first sentence does.
printf 'Ein Hund läuft.' > start.txt
python3 -c 'print(" " * 40000 + "Zwei Katzen schlafen.")' > tail.txt
paste -d '' start.txt tail.txt > cut.txt
expect_status 0 "cut line" -- bash -c "tfm-translate --beam 1 < cut.txt"
cp out cut.out
echo 'Ein Hund läuft.' | tfm-translate --beam 1 > whole.out
cmp -s cut.out whole.out && ok || fail "a line cut before tokenizing: '$(cat cut.out)' vs '$(cat whole.out)'"
finish
