#!/usr/bin/env bash
# A CPU that OpenBLAS does not know must not get its generic (SSE3) kernels when it runs AVX2 or
# AVX-512: the tools start again with OPENBLAS_CORETYPE naming those, unless the user set it.
. "$(dirname "$0")/lib.sh"
kernels() {  # the kernel name in tfm-bench's machine line
    sed -n 's/.*OpenBLAS (\([A-Za-z0-9]*\);.*/\1/p' out | head -1
}
bench=(tfm-bench sgemm --n 64 --reps 1 --warmup 0 --sgemm-n 64 --threads 1)
expect_status 0 "OpenBLAS's kernels, OPENBLAS_CORETYPE unset" -- env -u OPENBLAS_CORETYPE "${bench[@]}"
core=$(kernels)
[ -n "$core" ] && ok || fail "no OpenBLAS kernel name in: $(head -c 300 out)"
flags=$(grep -m1 '^flags' /proc/cpuinfo || true)
has() { grep -qw "$1" <<< "$flags"; }
if has avx2 && has fma; then
    case "$core" in
        Prescott | Core2 | Penryn | Dunnington | Nehalem | Atom | Sandybridge)
            fail "a CPU with AVX2 and FMA runs OpenBLAS's $core kernels" ;;
        *) ok ;;
    esac
fi
# The user's choice wins, whatever the CPU.
expect_status 0 "OPENBLAS_CORETYPE=Prescott" -- env OPENBLAS_CORETYPE=Prescott "${bench[@]}"
[ "$(kernels)" = Prescott ] && ok || fail "OPENBLAS_CORETYPE=Prescott ran $(kernels)"
# The tool that starts again keeps its arguments and its input.
printf 'a man rides a bike through the city\n' > ref.txt
expect_status 0 "stdin read after the restart" -- bash -c "printf 'a man rides a bike through the city\n' | env -u OPENBLAS_CORETYPE tfm-bleu ref.txt --score-only"
[ "$(cat out)" = "100.00" ] && ok || fail "tfm-bleu of identical text printed $(cat out)"
# ... and its name (ps, pgrep, killall find it as before).
sleep 5 | env -u OPENBLAS_CORETYPE tfm-bleu ref.txt > /dev/null 2>&1 &
pid=$!
sleep 1
name=$(cat /proc/$pid/comm 2>/dev/null)
kill $pid 2>/dev/null
wait
[ "$name" = tfm-bleu ] && ok || fail "the restarted tool is called '$name'"
finish
