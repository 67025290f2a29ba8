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
# -m takes a shipped model's name from any directory; a directory of that name here wins.
mkdir -p elsewhere
expect_status 0 "-m by the shipped model's name" -- bash -c "cd elsewhere && tfm-translate -m multi30k-de-en --beam 4 < ../de.txt"
cmp -s out en.txt && ok || fail "-m multi30k-de-en differs: $(cat out)"
mkdir -p elsewhere/multi30k-de-en
expect_status 1 "a directory here of that name wins" -- bash -c "cd elsewhere && tfm-translate -m multi30k-de-en < ../de.txt"
expect_err 'multi30k-de-en' "the local directory's error"
expect_status 1 "an unknown name" -- bash -c "cd elsewhere && tfm-translate -m no-such-model < ../de.txt"
expect_err 'no-such-model' "the unknown name's error"
finish
