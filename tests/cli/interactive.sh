#!/usr/bin/env bash
# Interactive pipes: a line tool kept open as a coprocess answers each line as soon as it is
# written, while its input stays open (it never waits for a window to fill or for the end of
# input), and its answers are those of the same lines read from a file.
. "$(dirname "$0")/lib.sh"
model="$TFM_SOURCE/share/models/multi30k-de-en"
printf 'Ein Hund läuft.\nEine Katze schläft auf dem Sofa.\nZwei Männer spielen Fußball.\n' > in.txt

# converse NAME INPUT EXPECTED COMMAND...: runs COMMAND as a coprocess; for each line of INPUT
# writes it, then reads one answer line within 60 s (input held open); the answers must equal
# the lines of EXPECTED. Prints the first answer's latency.
converse() {
    local name=$1 input=$2 expected=$3
    shift 3
    coproc CO { "$@" 2>co.err; }
    local i=0 line answer start first=""
    while IFS= read -r line; do
        i=$((i + 1))
        start=$(date +%s%N)
        printf '%s\n' "$line" >&"${CO[1]}"
        if ! IFS= read -r -t 60 answer <&"${CO[0]}"; then
            fail "$name: no answer to line $i within 60 s with the input held open"
            exec {CO[1]}>&-  # its input ends: it answers and exits
            wait "$CO_PID"
            return
        fi
        [ -z "$first" ] && first=$(( ($(date +%s%N) - start) / 1000000 ))
        want=$(sed -n "${i}p" "$expected")
        [ "$answer" = "$want" ] && ok || fail "$name: line $i answered '$answer', from a file '$want'"
    done < "$input"
    exec {CO[1]}>&-
    wait "$CO_PID" && ok || fail "$name: exit $? after its input closed: $(head -c 300 co.err)"
    echo "$name: first answer after ${first} ms"
}

tfm-translate -m "$model" < in.txt > hyp.txt
converse tfm-translate in.txt hyp.txt tfm-translate -m "$model"
tfm-translate -m "$model" --beam 1 < in.txt > hyp1.txt
converse "tfm-translate --beam 1" in.txt hyp1.txt tfm-translate -m "$model" --beam 1 --window 64
tfm-encode -m "$model" < in.txt | tfm-decode -m "$model" > hyp2.txt
cmp -s hyp.txt hyp2.txt && ok || fail "encode | decode differs from translate"
converse "tfm-encode | tfm-decode" in.txt hyp.txt bash -c "tfm-encode -m '$model' | tfm-decode -m '$model'"

paste in.txt hyp.txt > pairs.tsv
tfm-score -m "$model" --batch-size 1 < pairs.tsv > scores.txt  # as one pair per window is scored
converse tfm-score pairs.tsv scores.txt tfm-score -m "$model"

tfm-encode -m "$model" --pool mean < in.txt > corpus.npy
tfm-encode -m "$model" --pool mean < in.txt | tfm-similar --corpus corpus.npy -k 1 > near.txt
[ "$(cut -d: -f1 near.txt | xargs)" = "1 2 3" ] && ok || fail "each line is nearest itself: $(cat near.txt)"
converse "tfm-encode --pool | tfm-similar" in.txt near.txt \
    bash -c "tfm-encode -m '$model' --pool mean | tfm-similar --corpus corpus.npy -k 1"

# A file still fills whole windows, and the window does not change a translation.
tfm-translate -m "$model" --window 1 < in.txt > w1.txt
cmp -s w1.txt hyp.txt && ok || fail "window 1 and the default differ"
finish 23
