#!/usr/bin/env bash
# The models that ship in share/models (trained on Multi30k by share/recipes/multi30k.sh) load
# and translate simple sentences: the content words must come out, with the decoding settings
# each model brings (its generation_config.json) and with greedy search, and encode | decode must
# print what translate prints. Each is found by its name from any directory.
. "$(dirname "$0")/lib.sh"

# shipped NAME INPUT: checks share/models/NAME on the file INPUT; each later argument is
# "LINE REGEX..." (every REGEX must match that line of the translation). NAME.out keeps the
# translation with the model's own search.
shipped() {
    local name=$1 model="$TFM_SOURCE/share/models/$1" f spec line w
    cp "$2" in.txt
    shift 2
    for f in config.json model.safetensors source.spm target.spm generation_config.json; do
        [ -s "$model/$f" ] && ok || fail "$model/$f missing"
    done
    local lines
    lines=$(awk 'END { print NR }' in.txt)
    for beam in "" 1; do
        local flags=()
        [ -n "$beam" ] && flags=(--beam "$beam")
        expect_status 0 "$name: translate ${flags[*]}" -- tfm-translate -m "$model" "${flags[@]}" < in.txt
        cp out hyp.txt
        [ "$(awk 'END { print NR }' hyp.txt)" -eq "$lines" ] && ok || fail "$name: $lines lines in, $(awk 'END { print NR }' hyp.txt) out"
        for spec in "$@"; do
            read -r line rest <<< "$spec"
            for w in $rest; do
                sed -n "${line}p" hyp.txt | grep -Eqi "$w" && ok ||
                    fail "$name ${flags[*]}: line $line lacks /$w/: $(sed -n "${line}p" hyp.txt)"
            done
        done
        expect_status 0 "$name: encode | decode ${flags[*]}" -- \
            bash -c "tfm-encode -m '$model' < in.txt | tfm-decode -m '$model' ${flags[*]}"
        cmp -s out hyp.txt && ok || fail "$name: encode | decode ${flags[*]} differs from translate: $(cat out)"
        [ -z "$beam" ] && cp hyp.txt "$name.out"
    done
    # -m takes a shipped model's name from any directory; a directory of that name here wins.
    mkdir -p elsewhere
    expect_status 0 "-m $name" -- bash -c "cd elsewhere && tfm-translate -m $name < ../in.txt"
    cmp -s out "$name.out" && ok || fail "-m $name differs: $(cat out)"
    mkdir -p "elsewhere/$name"
    expect_status 1 "a directory here called $name wins" -- bash -c "cd elsewhere && tfm-translate -m $name < ../in.txt"
    expect_err "$name" "the local directory's error"
    rm -rf "elsewhere/$name"
}

cat > de.txt <<'TXT'
Ein Mann fährt Fahrrad.
Zwei Hunde spielen im Schnee.
Eine Frau singt auf einer Bühne.
Ein kleines Mädchen isst einen Apfel.
TXT
cat > en.txt <<'TXT'
A man rides a bicycle.
Two dogs play in the snow.
A woman sings on a stage.
A little girl eats an apple.
TXT
shipped multi30k-en-de en.txt '1 \bMann\b Fahrrad|Rad' '2 \b(Zwei|2)\b \bHunde\b \bSchnee' \
    '3 \bFrau\b \bsingt\b \bBühne\b' '4 \bMädchen\b \bisst\b \bApfel\b'
shipped multi30k-de-en de.txt '1 \bman\b bike|bicycle|cycl' '2 \b(two|2)\b \bdogs\b \bsnow' \
    '3 \bwoman\b \bsing \bstage\b' '4 \bgirl\b \beat \bapple\b'
# Without -m: the German->English model.
expect_status 0 "the default model" -- tfm-translate < de.txt
cmp -s out multi30k-de-en.out && ok || fail "the default is not multi30k-de-en: $(cat out)"

expect_status 1 "an unknown name" -- tfm-translate -m no-such-model < de.txt
expect_err 'no-such-model' "the unknown name's error"
finish
