#!/usr/bin/env bash
# A tool that writes a directory builds it beside -o and renames it whole (issue 49): stopped
# by SIGINT, SIGTERM or SIGHUP at any moment, it leaves either nothing or the whole model, and
# never a hidden .tfm-new-* directory or a partial file. The stops land at several delays, so
# some fall inside the write; each outcome is checked whatever the timing.
. "$(dirname "$0")/lib.sh"

model="$TFM_SOURCE/share/models/multi30k-de-en"
for sig in INT TERM HUP; do
    for delay in 0.02 0.05 0.1 0.2 0.3 0.5; do
        rm -rf exported
        timeout -s $sig $delay tfm-export -m "$model" -o exported --dtype f32 >/dev/null 2>err
        status=$?
        echo "SIG$sig after ${delay}s: exit $status"
        leftovers=$(ls -A | grep '^\.tfm-new' || true)
        [ -z "$leftovers" ] && ok || fail "SIG$sig after ${delay}s (exit $status) left $leftovers"
        if [ -e exported ]; then  # done, or stopped after the rename (the signal waited for it)
            tfm-info -m exported >/dev/null 2>&1 && ok || fail "SIG$sig after ${delay}s: exported/ is not a whole model"
        else
            [ "$status" -ne 0 ] && ok || fail "SIG$sig after ${delay}s: exit 0 without exported/"
        fi
    done
done
# A failure half way (a value F16 cannot hold) leaves nothing either.
tfm-export -m "$model" -o f32 >/dev/null 2>&1 && ok || fail "export to f32"
python3 - f32/model.safetensors <<'PY'
import json, struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
n = struct.unpack("<Q", b[:8])[0]
t = json.loads(b[8:8 + n])
last = max(t.items(), key=lambda kv: kv[1]["data_offsets"][0] if kv[0] != "__metadata__" else -1)
at = 8 + n + last[1]["data_offsets"][0]
b[at:at + 4] = struct.pack("<f", 1e9)
open(sys.argv[1], "wb").write(bytes(b))
PY
expect_status 1 "tfm-export --dtype f16 failing at its last tensor" -- tfm-export -m f32 -o f16 --dtype f16
expect_err "^tfm-export: error: f16/model.safetensors: tensor" "the error names -o, not the staging directory"
[ ! -e f16 ] && [ -z "$(ls -A | grep '^\.tfm-new' || true)" ] && ok || fail "a failed export left f16/ or a staging directory"
finish
