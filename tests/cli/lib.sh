# Shared by the CLI tests. CTest sets TFM_BIN (the tools), TFM_HELPERS (test helpers),
# TFM_GOLDEN (fixtures) and runs each script in a fresh temporary directory.
set -u
PATH="$TFM_BIN:$TFM_HELPERS:$PATH"
export PATH
failures=0
checks=0
skipped=0

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

ok() { checks=$((checks + 1)); }

# skip WHAT: a part this machine cannot run (say why); the script then ends as skipped (77,
# which ctest shows as a skip), unless a check failed.
skip() {
    echo "skip: $*"
    skipped=$((skipped + 1))
}

# expect_status CODE DESCRIPTION -- command...   (stdout -> out, stderr -> err)
expect_status() {
    local code=$1 what=$2
    shift 3
    "$@" >out 2>err
    local got=$?
    if [ "$got" -ne "$code" ]; then
        fail "$what: exit $got, expected $code; stderr: $(head -c 400 err)"
    else
        ok
    fi
}

# expect_err PATTERN DESCRIPTION: the last command's stderr matches the extended regex.
expect_err() {
    if grep -Eq -- "$1" err; then ok; else fail "$2: stderr lacks /$1/: $(head -c 400 err)"; fi
}

# compare EXPECTED ACTUAL DESCRIPTION [tensor_compare flags]
compare() {
    local e=$1 a=$2 what=$3
    shift 3
    if tensor_compare "$e" "$a" "$@" >cmp.out 2>cmp.err; then ok; else fail "$what: $(cat cmp.err)"; fi
}

# broken_model DESCRIPTION PATTERN: tfm-translate on the model directory ./bad fails with exit 1
# within 20 s (no hang), a short message matching PATTERN.
broken_model() {
    expect_status 1 "$1" -- bash -c 'echo Haus | timeout 20 tfm-translate -m bad --beam 1'
    expect_err "$2" "$1 message"
    [ "$(wc -c < err)" -lt 1000 ] && ok || fail "$1: a message of $(wc -c < err) bytes"
}

# bad_config DESCRIPTION SED-SCRIPT PATTERN: ./bad is ./model with config.json edited by the sed
# script, and broken_model holds for it.
bad_config() {
    rm -rf bad
    cp -r model bad
    sed -i "$2" bad/config.json
    broken_model "$1" "$3"
}

# finish [MIN]: the summary and the exit status: 1 when a check failed or fewer than MIN
# (default 1) passed, so that a script that checked nothing cannot pass; 77 when a part was
# skipped; else 0.
finish() {
    local min=${1:-1}
    echo "$checks checks passed, $failures failed$([ "$skipped" -eq 0 ] || echo ", $skipped parts skipped")"
    [ "$checks" -ge "$min" ] || { echo "FAIL: $checks checks passed, at least $min expected" >&2; exit 1; }
    [ "$failures" -eq 0 ] || exit 1
    [ "$skipped" -eq 0 ] || exit 77
    exit 0
}

# npy_preamble DICT: magic, version 1.0, header length and DICT padded to 64 bytes.
npy_preamble() {
    local dict=$1
    local len=$(( ${#dict} + 1 ))
    local pad=$(( (64 - (10 + len) % 64) % 64 ))
    len=$((len + pad))
    printf '\223NUMPY\001\000'
    printf "\\$(printf %03o $((len % 256)))\\$(printf %03o $((len / 256)))"
    printf '%s%*s\n' "$dict" "$pad" ""
}

# copy_corpus N: N lines of 3 to 7 words drawn from twelve, the same every time.
copy_corpus() {
    awk -v n="$1" 'BEGIN { srand(7); split("ka lo mi nu pe ra si tu ve wo xa ze", w, " ");
        for (i = 0; i < n; i++) { k = 3 + int(rand() * 5); s = "";
            for (j = 0; j < k; j++) s = s (j ? " " : "") w[1 + int(rand() * 12)]; print s } }'
}
