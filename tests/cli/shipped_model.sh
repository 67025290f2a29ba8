#!/usr/bin/env bash
# The model that ships in share/models/multi30k-de-en (trained on Multi30k by
# share/recipes/multi30k-de-en.sh) loads and translates simple German into English: the
# content words must come out, and encode | decode must print what translate prints.
. "$(dirname "$0")/lib.sh"
model="$TFM_SOURCE/share/models/multi30k-de-en"
for f in config.json model.safetensors source.spm target.spm; do
    [ -s "$model/$f" ] && ok || fail "$model/$f missing"
done
cat > de.txt <<'TXT'
Ein Mann fährt Fahrrad.
Zwei Hunde spielen im Schnee.
Eine Frau singt auf einer Bühne.
Ein kleines Mädchen isst einen Apfel.
TXT
expect_status 0 "translate with the shipped model" -- tfm-translate -m "$model" --beam 4 < de.txt
cp out en.txt
[ "$(awk 'END { print NR }' en.txt)" -eq 4 ] && ok || fail "4 lines in, $(awk 'END { print NR }' en.txt) out"
check() {  # check LINE WORD-REGEX...
    local line=$1
    shift
    for w in "$@"; do
        sed -n "${line}p" en.txt | grep -Eqi "$w" && ok || fail "line $line lacks /$w/: $(sed -n "${line}p" en.txt)"
    done
}
check 1 '\bman\b' 'bike|bicycle|cycl'
check 2 '\b(two|2)\b' '\bdogs\b' '\bsnow'
check 3 '\bwoman\b' '\bsing' '\bstage\b'
check 4 '\bgirl\b' '\beat' '\bapple\b'
expect_status 0 "encode | decode" -- bash -c "tfm-encode -m '$model' < de.txt | tfm-decode -m '$model' --beam 4"
cmp -s out en.txt && ok || fail "encode | decode differs from translate: $(cat out)"
finish
