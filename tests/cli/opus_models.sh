#!/usr/bin/env bash
# OPUS-MT models as a user downloads them (fixtures: tests/golden/make_opus_golden.py): an HF
# directory translates as PyTorch and MarianTokenizer do, with the model's own generation
# settings; --target-lang and tfm-info; a Marian release (stored or deflated .npz) converts
# with tfm-marian, translates the same, and exports back bit for bit; damaged Marian files
# fail with a short message.
. "$(dirname "$0")/lib.sh"
for m in base tcbig separate; do
    cp -r "$TFM_GOLDEN/opus_$m" "$m"
    cut -f1 "$TFM_GOLDEN/opus_${m}_lines.tsv" > "$m.src"
    cut -f4 "$TFM_GOLDEN/opus_${m}_lines.tsv" > "$m.want"
    expect_status 0 "translate opus_$m greedy" -- tfm-translate -m "$m" --beam 1 < "$m.src"
    cmp -s out "$m.want" && ok || fail "opus_$m: $(diff out "$m.want" | head -4)"
    expect_status 0 "encode | decode opus_$m" -- bash -c "tfm-encode -m $m < $m.src | tfm-decode -m $m --beam 1"
    cmp -s out "$m.want" && ok || fail "opus_$m encode | decode: $(diff out "$m.want" | head -4)"
    # the model's own settings (num_beams 4) without flags: one line per input line
    expect_status 0 "translate opus_$m with its defaults" -- tfm-translate -m "$m" < "$m.src"
    [ "$(wc -l < out)" -eq "$(wc -l < "$m.src")" ] && ok || fail "opus_$m: $(wc -l < out) lines out"
done

# tfm-info: what will be used
expect_status 0 "tfm-info" -- tfm-info -m tcbig
[ ! -s err ] && ok || fail "tfm-info wrote to stderr: $(head -c 300 err)"
grep -q "^target languages: 3: fra ita por$" out && ok || fail "tfm-info languages: $(grep languages out)"
grep -q "^decoding: beam 4, length penalty power 1,.*never generated: \[111\] (from tcbig/generation_config.json)" out \
    && ok || fail "tfm-info decoding: $(grep decoding out)"
grep -q "^special ids: eos 57 </s>, pad 111 <pad>" out && ok || fail "tfm-info ids: $(grep special out)"
expect_status 0 "tfm-info --target-languages" -- tfm-info -m tcbig --target-languages
[ "$(cat out)" = "$(printf 'fra\nita\npor')" ] && ok || fail "--target-languages: $(cat out)"
expect_status 0 "tfm-info of the shipped model" -- tfm-info
beams=$(sed -n 's/.*"num_beams": *\([0-9]*\).*/\1/p' "$TFM_SOURCE/share/models/multi30k-de-en/generation_config.json")
grep -q "^decoding: beam $beams, length penalty power .*(from .*/multi30k-de-en/generation_config.json)" out &&
    ok || fail "shipped model decoding: $(grep decoding out)"
cp -r "$TFM_SOURCE/share/models/multi30k-de-en" plain
rm plain/generation_config.json
expect_status 0 "tfm-info of a model without generation settings" -- tfm-info -m plain
grep -q "(tfm's defaults)" out && ok || fail "plain model decoding: $(grep decoding out)"

# --target-lang puts >>xx<< before lines without a code of their own
printf 'ein Kind spielt\n>>ita<< eine Frau\n' > lang.src
printf '>>por<< ein Kind spielt\n>>ita<< eine Frau\n' > lang.want.src
expect_status 0 "explicit codes" -- tfm-translate -m tcbig --beam 1 < lang.want.src
cp out lang.want
expect_status 0 "--target-lang por" -- tfm-translate -m tcbig --beam 1 --target-lang por < lang.src
cmp -s out lang.want && ok || fail "--target-lang: $(diff out lang.want | head -4)"
expect_status 2 "--target-lang unknown" -- tfm-translate -m tcbig --target-lang xx < lang.src
expect_err "target-lang: xx is not one of the model's 3 languages: fra ita por" "--target-lang unknown message"
expect_status 2 "--target-lang on a single-target model" -- tfm-encode -m base --target-lang por < lang.src
expect_err "no target-language codes" "--target-lang single-target message"
# a flag beats the model's setting
expect_status 0 "--beam 1 over num_beams" -- tfm-translate -m base --beam 1 --n-best 1 < base.src
cmp -s out base.want && ok || fail "--beam 1 over num_beams 4"

# forced_eos_token_id (tcbig has it, base not): at --max-length 3, eos is forced as the 3rd token
expect_status 0 "forced eos at --max-length" -- tfm-translate -m tcbig --beam 1 --max-length 3 --output-ids < tcbig.src
awk 'NF > 2 { bad = 1 } END { exit bad }' out && grep -q '^[0-9]* [0-9]*$' out && ok || fail "forced eos: $(cat out)"
expect_status 0 "no forced eos without the setting" -- tfm-translate -m base --beam 1 --max-length 3 --output-ids < base.src
grep -q '^[0-9]* [0-9]* [0-9]*$' out && ok || fail "base at --max-length 3: $(cat out)"

# tfm-export keeps vocab.json and the generation settings
expect_status 0 "tfm-export of an OPUS-MT directory" -- tfm-export -m base -o base-exported --dtype f16
[ -s base-exported/vocab.json ] && [ -s base-exported/generation_config.json ] && ok || fail "export: $(ls base-exported)"
expect_status 0 "tfm-info of the export" -- tfm-info -m base-exported
grep -q "never generated: \[95\]" out && ok || fail "exported generation: $(grep decoding out)"

# A Marian release: import, translate, export, import again
cp -r "$TFM_GOLDEN/marian_release" release
cut -f1 "$TFM_GOLDEN/opus_marian_lines.tsv" > marian.src
cut -f4 "$TFM_GOLDEN/opus_marian_lines.tsv" > marian.want
expect_status 0 "tfm-marian import" -- tfm-marian import release -o imported
expect_status 0 "translate the imported model" -- tfm-translate -m imported --beam 1 < marian.src
cmp -s out marian.want && ok || fail "imported: $(diff out marian.want | head -4)"
expect_status 0 "decoder.yml's beam and normalize" -- tfm-info -m imported
grep -q "^decoding: beam 6, length penalty power 0.6," out && ok || fail "imported decoding: $(grep decoding out)"
expect_status 2 "import into a model" -- tfm-marian import release -o imported
expect_err "already" "import into a model message"
expect_status 0 "import --force" -- tfm-marian import release -o imported --force
expect_status 0 "tfm-marian export" -- tfm-marian export -m imported -o exported
[ -s exported/model.npz ] && [ -s exported/vocab.yml ] && [ -s exported/decoder.yml ] && ok || fail "export: $(ls exported)"
expect_status 0 "import the export" -- tfm-marian import exported -o again
expect_status 0 "translate it" -- tfm-translate -m again --beam 1 < marian.src
cmp -s out marian.want && ok || fail "re-imported: $(diff out marian.want | head -4)"
expect_status 0 "tfm-export of a Marian release" -- tfm-export -m release -o via-export --dtype f16
expect_status 0 "translate it" -- tfm-translate -m via-export --beam 1 < marian.src
[ "$(wc -l < out)" -eq "$(wc -l < marian.src)" ] && ok || fail "tfm-export of a release translates $(wc -l < out) lines"
expect_status 1 "export of tfm's own model" -- tfm-marian export -m "$TFM_SOURCE/share/models/multi30k-de-en" -o own
expect_err "Marian cannot run this model: it has no vocab.json" "export refusal message"
[ ! -e own ] && ok || fail "a refused export left $(ls own)"

if python3 -c "import numpy" 2>/dev/null; then
    # numpy reads what tfm-marian wrote, and every weight is the release's, bit for bit
    python3 - release/*.npz exported/model.npz <<'PY' > cmp.txt 2>&1 && ok || fail "npz round trip: $(cat cmp.txt)"
import sys
import numpy as np
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
names = set(a.files) - {"special:model.yml"}
assert names == set(b.files) - {"special:model.yml"}, (sorted(names ^ set(b.files)))
for k in names:
    assert a[k].dtype == b[k].dtype and a[k].shape == b[k].shape and np.array_equal(a[k], b[k]), k
PY
    # a release saved with savez_compressed (deflated entries)
    cp -r release deflated
    python3 -c "
import glob, numpy as np
p = glob.glob('deflated/*.npz')[0]
np.savez_compressed(p, **dict(np.load(p)))"
    expect_status 0 "import a deflated npz" -- tfm-marian import deflated -o from-deflated
    expect_status 0 "translate it" -- tfm-translate -m from-deflated --beam 1 < marian.src
    cmp -s out marian.want && ok || fail "deflated: $(diff out marian.want | head -4)"
fi

# Damaged Marian files: a short message naming the file, nothing written
npz=$(ls release/*.npz)
broken_release() {
    expect_status 1 "$1" -- timeout 20 tfm-marian import bad -o bad-out
    expect_err "$2" "$1 message"
    [ "$(wc -c < err)" -lt 1000 ] && ok || fail "$1: a message of $(wc -c < err) bytes"
    [ ! -e bad-out ] && ok || fail "$1: left bad-out"
}
rm -rf bad && cp -r release bad && head -c $(($(wc -c < "$npz") / 2)) "$npz" > "bad/$(basename "$npz")"
broken_release "truncated npz" "\.npz"
rm -rf bad && cp -r release bad && echo "models: [nothing.npz]" > bad/decoder.yml
broken_release "decoder.yml without vocabs" "decoder.yml"
rm -rf bad && cp -r release bad && printf 'models:\n  - m.npz\nvocabs:\n  - v.yml\n  - v.yml\n' > bad/decoder.yml
broken_release "missing model file" "missing .*m.npz"
rm -rf bad && cp -r release bad && printf '"</s>": 0\n"<unk>": 1\n"x": 100000\n' > bad/opus.spm32k-spm32k.vocab.yml
broken_release "vocabulary id outside the model" "vocab.yml.*outside"
rm -rf bad && cp -r release bad && printf '"</s>": 0\n"x": 2\n' > bad/opus.spm32k-spm32k.vocab.yml
broken_release "vocabulary without <unk>" "no <unk>"
rm -rf bad && cp -r release bad && printf ': : [\n' > bad/opus.spm32k-spm32k.vocab.yml
broken_release "vocabulary not YAML" "YAML"
rm -rf bad && mkdir bad
broken_release "an empty directory" "0 files \*\.npz"
finish
