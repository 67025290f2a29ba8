#!/usr/bin/env bash
# One name, one meaning: a long option that two tools (or tfm-bench subcommands) describe in
# different words is declared below with the meaning every one of those descriptions must
# state; such a name left undeclared, or described otherwise by one tool, fails. (A name every
# tool describes alike comes from one definition, tools/common/shared_options.hpp and the
# flag sets beside it.) Renamed options keep
# their old spelling for one release, with a warning.
. "$(dirname "$0")/lib.sh"

# NAME <TAB> extended regex every description of NAME matches (its one meaning).
cat > meanings.tsv <<'TSV'
--threads	^Threads
--batch-size	per batch
--window	read ahead and sorted by length
--input-ids	^Input lines are integer ids
--output-ids	^Print token ids instead of text
--format	^Output( format)?:
--text	^Same as --format text
--model	[Mm]odel directory
--output	(to write|to create|Model directory)
--heads	^Attention heads H
--labels	^Token labels.*columns
--layers	^Encoder and decoder layers
--d-model	^Model width D
--ffn	^Feed-forward width F
--vocab-size	[Vv]ocabulary size
--d	^Model widths D
--n	^(Sequence lengths|Sizes)
--beam	^Beam size
--causal	^Causal mask
--seed	^Seed
--positions	^(Number of positions|Target positions)
--position-encoding	^Positional encoding
--preset	(base|tiny)
--source-length	^Source tokens
--average-last	mean of the .*last K .*checkpoints
--compute-type	([Cc]ompute types|[Aa]rithmetic of the (weight )?products)
--dropout	[Dd]ropout
--reps	[Rr]epetitions
--warmup	(Untimed runs|[Ww]armup)
--sgemm-n	sgemm
--plot	(plot|[Pp]icture)
--fit-min-ms	^Fit
--max-length	output tokens
--min-length	eos before
--alignment	(hard|soft)
--alignment-layer	^Decoder layer
--alignment-heads	heads
--target-lang	[Tt]arget language
--max-input-length	longer than N tokens
--strict	(over the input limit|refused|error)
--dtype	(f32|F32)
--spm	SentencePiece
--shortlist	[Vv]ocabulary shortlist
TSV

# Every tool's help and every tfm-bench subcommand's, as "WHO<TAB>help text".
: > help.txt
for t in "$TFM_BIN"/tfm-*; do
    name=$(basename "$t")
    "$t" --help 2>&1 | sed "s/^/$name\t/" >> help.txt
done
for sub in $(tfm-bench --help | awk '/^Subcommands:/ { s = 1; next } s && NF { print $1 }'); do
    tfm-bench "$sub" --help 2>&1 | sed "s/^/tfm-bench $sub\t/" >> help.txt
done
[ "$(cut -f1 help.txt | sort -u | wc -l)" -ge 20 ] && ok || fail "help of fewer than 20 tools and subcommands"

python3 - meanings.tsv help.txt > verdict.txt <<'PY'
import re, sys, collections
meaning = dict(line.rstrip('\n').split('\t', 1) for line in open(sys.argv[1]))
lines = [l.rstrip('\n').split('\t', 1) for l in open(sys.argv[2])]
desc = collections.defaultdict(dict)  # option -> who -> description
for i, (who, text) in enumerate(lines):
    m = re.match(r'^  (?:-\w,)?(--[a-z0-9-]+)', text)
    if not m or m.group(1) in ('--help', '--version'):
        continue
    follow = lines[i + 1][1] if i + 1 < len(lines) and lines[i + 1][0] == who else ''
    # CLI11 puts the description at column 32, or on the next line when the option is longer.
    d = follow.strip() if follow.startswith(' ' * 30) else text[32:].strip()
    desc[m.group(1)][who] = d
bad = 0
for name, by in sorted(desc.items()):
    if len(by) < 2 or len(set(by.values())) == 1:
        continue  # one tool, or one definition that every tool shares
    if name not in meaning:
        bad += 1
        print(f'{name} is shared by {", ".join(sorted(by))} but its meaning is not declared')
        continue
    for who, d in sorted(by.items()):
        if not re.search(meaning[name], d):
            bad += 1
            print(f'{who}: {name} "{d}" does not mean what /{meaning[name]}/ says')
print(f'{len([n for n, b in desc.items() if len(b) >= 2])} shared names, {bad} bad')
PY
tail -1 verdict.txt
grep -q ' 0 bad$' verdict.txt && ok || fail "option names: $(grep -v ' bad$' verdict.txt | head -20)"
[ "$(tail -1 verdict.txt | cut -d' ' -f1)" -ge 20 ] && ok || fail "fewer than 20 shared names found: the help parser broke"

# The old spellings still work for one release, with a warning, as the new names.
model="$TFM_SOURCE/share/models/multi30k-de-en"
echo "Ein Hund." > in.txt
tfm-translate -m "$model" --beam 1 --output-ids < in.txt > new.txt
expect_status 0 "tfm-translate --ids" -- tfm-translate -m "$model" --beam 1 --ids < in.txt
cmp -s out new.txt && ok || fail "--ids is not --output-ids"
expect_err "warning: --ids is now --output-ids" "rename warning"
expect_status 0 "tfm-encode --ids" -- bash -c "echo '5 6' | tfm-encode -m '$model' --ids | tfm-cat --info"
expect_err "warning: --ids is now --input-ids" "tfm-encode rename warning"
expect_status 0 "tfm-bench train --vocab --pairs" -- tfm-bench train --vocab 50 --pairs 2 --length 4 --layers 1 \
    --d-model 16 --heads 2 --ffn 32 --reps 1 --warmup 0 --sgemm-n 64 --format csv
expect_err "warning: --vocab is now --vocab-size" "bench rename warning"
expect_err "warning: --pairs is now --batch-pairs" "bench subcommand rename warning"
expect_status 0 "tfm-bench train --layers stays" -- tfm-bench train --layers 1 --d-model 16 --heads 2 --ffn 32 --vocab-size 50 \
    --batch-pairs 2 --length 4 --reps 1 --warmup 0 --sgemm-n 64 --format csv
grep -q "warning" err && fail "a warning for train --layers, which is not renamed: $(cat err)" || ok
finish 12
