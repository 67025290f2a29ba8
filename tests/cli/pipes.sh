#!/usr/bin/env bash
# Pipes and terminals: a reader that goes away ends a tool quietly and nothing hangs; binary
# is never written to a terminal.
. "$(dirname "$0")/lib.sh"

# 1,000,000 x 512 floats would be 2 GB: head takes 100 bytes and the pipeline ends at once.
start=$(date +%s)
timeout 60 bash -c 'tfm-posenc -n 1000000 -d 512 2>err1 | head -c 100 > /dev/null; echo "${PIPESTATUS[0]}" > status1'
[ $? -eq 0 ] && ok || fail "the pipeline hung"
[ -s err1 ] && fail "tfm-posenc printed on a closed pipe: $(cat err1)" || ok
[ "$(cat status1)" = 141 ] && ok || fail "tfm-posenc ended with $(cat status1), expected death by SIGPIPE (141)"
[ $(( $(date +%s) - start )) -lt 30 ] && ok || fail "closing the pipe took too long"

# A middle tool whose reader dies: the endless upstream and the middle both end, quietly.
tfm-posenc -n 64 -d 64 > pe.npy
timeout 60 bash -c 'while cat pe.npy; do :; done 2>/dev/null | tfm-attend --format text --heads 4 2>err3 | head -c 10 > /dev/null'
[ $? -eq 0 ] && ok || fail "a three-stage pipeline hung"
timeout 60 bash -c 'tfm-posenc -n 1000000 -d 64 2>err2 | tfm-posenc --add 2>>err3 | head -c 10 > /dev/null'
[ $? -eq 0 ] && ok || fail "posenc | posenc --add | head hung"
[ -s err2 ] || [ -s err3 ] && fail "messages on a closed pipe: $(cat err2 err3)" || ok

# With SIGPIPE ignored by the parent, EPIPE also ends the tool quietly.
timeout 60 bash -c 'trap "" PIPE; tfm-posenc -n 1000000 -d 64 2>err4 | head -c 10 > /dev/null'
[ -s err4 ] && fail "message with SIGPIPE ignored: $(cat err4)" || ok

# A terminal gets text, never binary (script(1), from util-linux, gives the tool a terminal).
if command -v script >/dev/null; then
    script -qec "$TFM_BIN/tfm-posenc -n 2 -d 4" /dev/null > tty.out 2>&1
    tr -d '\r' < tty.out | grep -q '^0 1 0 1$' && ok || fail "terminal output is not text: $(head -c 100 tty.out | od -c | head -3)"
    grep -q NUMPY tty.out && fail "binary written to a terminal" || ok
else
    skip "script(1) is missing (Debian's bsdutils): the terminal check cannot run"
fi
finish
