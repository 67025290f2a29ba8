#!/usr/bin/env bash
# Faults: a training run killed with SIGKILL at random moments, several times, always resumes
# from an intact checkpoint, loses at most one checkpoint interval, and finishes; a million
# tiny records stream through in bounded memory; every text input gives one output line per
# input line, whatever its bytes.
. "$(dirname "$0")/lib.sh"
copy_corpus 600 > train.txt
arch=(--preset tiny --d-model 32 --ffn 64 --batch-tokens 256 --warmup 50 --dropout 0 --save-every 5 --log-every 1)
tfm-train --src train.txt --tgt train.txt -o run "${arch[@]}" --vocab-size 40 --steps 1 >/dev/null 2>&1
RANDOM=7
for round in 1 2 3 4; do
    tfm-train --src train.txt --tgt train.txt -o run --resume --steps 400 --save-every 5 --log-every 1 \
        --batch-tokens 256 --warmup 50 --dropout 0 >/dev/null 2>"kill$round.err" &
    pid=$!
    sleep "0.$((3 + RANDOM % 7))"
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    last=$(tail -1 run/metrics.tsv | cut -f1)
    # The newest checkpoint is whole: the next run resumes from it, within one interval of the
    # last logged step.
    expect_status 0 "round $round: resume after SIGKILL" -- tfm-train --src train.txt --tgt train.txt -o run --resume \
        --steps $((last + 1)) --save-every 5 --log-every 1 --batch-tokens 256 --warmup 50 --dropout 0
    from=$(grep -o 'at step [0-9]*' err | grep -o '[0-9]*$')
    [ -n "$from" ] && [ "$from" -ge $((last - 5)) ] && ok || fail "round $round: resumed at step '$from', last logged $last: $(cat err)"
    expect_status 0 "round $round: the model directory translates" -- bash -c 'head -3 train.txt | tfm-translate -m run --max-length 8'
done
ls run/checkpoints | grep -q tmp && fail "a temporary checkpoint left behind: $(ls run/checkpoints)" || ok
expect_status 0 "the resumed run finishes" -- tfm-train --src train.txt --tgt train.txt -o run --resume --steps 420 \
    --save-every 5 --log-every 1 --batch-tokens 256 --warmup 50 --dropout 0
[ "$(tail -1 run/metrics.tsv | cut -f1)" = 420 ] && ok || fail "finished at step $(tail -1 run/metrics.tsv | cut -f1)"

# A million [1] records through tfm-cat: all of them, in bounded memory (under the
# sanitizers, whose quarantine holds freed memory on purpose so that memory is not checked
# there, 200,000 records: each costs several times as much).
records=1000000
[ "${TFM_SANITIZE:-0}" = 1 ] && records=200000
expect_status 0 "$records tiny records" -- bash -c \
    "awk 'BEGIN { for (i = 0; i < $records; i++) printf \"%d\\n\\n\", i }' | tfm-cat > million.npy && tfm-cat --info million.npy | wc -l"
[ "$(cat out)" -eq $records ] && ok || fail "records: $(cat out)"
python3 -c '
import resource, subprocess, sys
with open("last.txt", "wb") as out:
    p = subprocess.run(["tfm-cat", "-t", "million.npy"], stdout=subprocess.PIPE, check=True)
    out.write(p.stdout.split()[-1] + b"\n")
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' > rss.txt
[ "$(cat last.txt)" = $((records - 1)) ] && ok || fail "last record $(cat last.txt)"
if [ "${TFM_SANITIZE:-0}" != 1 ]; then
    [ "$(cat rss.txt)" -lt 65536 ] && ok || fail "peak RSS $(cat rss.txt) KiB for a million records"
fi
rm -f million.npy

# One line out per line in, for random bytes: NUL, CR, invalid UTF-8, long and empty lines.
tfm-init -o m --preset tiny --spm run/source.spm >/dev/null 2>&1
for seed in 1 2 3; do
    python3 -c "
import random, sys
r = random.Random($seed)
alphabet = [b'a', b'b', b' ', b'\0', b'\r', b'\xff', b'\xc3', b'\xa9', b'ka ', b'lo ', b'\t']
lines = [b''.join(r.choice(alphabet) for _ in range(r.choice([0, 1, 5, 40, 3000]))) for _ in range(30)]
sys.stdout.buffer.write(b'\n'.join(lines) + (b'\n' if $seed != 2 else b''))" > rnd$seed.txt
    n=$(python3 -c "d = open('rnd$seed.txt', 'rb').read(); print(d.count(b'\n') + (0 if d.endswith(b'\n') or not d else 1))")
    expect_status 0 "random bytes $seed through tfm-translate" -- tfm-translate -m m --max-length 4 < rnd$seed.txt
    [ "$(awk 'END { print NR }' out)" -eq "$n" ] && ok || fail "seed $seed: $(awk 'END { print NR }' out) lines for $n"
    expect_status 0 "random bytes $seed through tfm-encode | tfm-decode" -- bash -c "tfm-encode -m m < rnd$seed.txt | tfm-decode -m m --max-length 4"
    [ "$(awk 'END { print NR }' out)" -eq "$n" ] && ok || fail "seed $seed pipeline: $(awk 'END { print NR }' out) lines for $n"
done
# A line of 1 MB: cut before tokenizing (64 bytes per position), then to the model's positions,
# with a warning naming it, still one line out.
python3 -c "import sys; sys.stdout.write('ka lo ' * 174763 + '\nmi\n')" > mb.txt
expect_status 0 "a 1 MB line" -- tfm-translate -m m --max-length 4 < mb.txt
[ "$(awk 'END { print NR }' out)" -eq 2 ] && ok || fail "1 MB line: $(awk 'END { print NR }' out) lines for 2"
expect_err "^tfm-translate: warning: line 1: 1048578 bytes, more than the [0-9]+ read for the model.s [0-9]+ positions; cut to [0-9]+ bytes before tokenizing, then to [0-9]+ tokens" "1 MB line warning"
# A line over the positions but under the byte budget: cut by tokens alone, as before.
python3 -c "import sys; sys.stdout.write('ka lo ' * 400 + '\n')" > long.txt
expect_status 0 "a line of 800 words" -- tfm-translate -m m --max-length 4 < long.txt
expect_err "^tfm-translate: warning: line 1: [0-9]+ tokens, more than the model.s [0-9]+ positions; cut to [0-9]+$" "800 words warning"
finish
