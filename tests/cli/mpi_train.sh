#!/usr/bin/env bash
# tfm-train as an MPI job on this machine (mpirun -np R, oversubscribed): with the same batch
# parts, R = 1, 2 and 4 ranks train bit for bit as one process with 2 threads; a run resumes
# across rank counts (1 -> 2) and ends where an uninterrupted run ends; a stop signal to any
# rank stops every rank at one update with one checkpoint; a rank killed outright, one that
# cannot read its data or one out of memory ends the whole job with a clear error, leaving
# the last checkpoint usable.
. "$(dirname "$0")/lib.sh"
if ! command -v mpirun >/dev/null || ! ldd "$TFM_BIN/tfm-train" | grep -q libtfm_mpi; then
    echo "SKIP: tfm-train built without MPI, or no mpirun (make deps installs OpenMPI)"
    exit 77
fi
# OpenMPI as root, more ranks than cores, shared memory only, and no single-copy transfers
# between processes (containers often forbid the ptrace-like reads they need).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
# Under the sanitizers, OpenMPI's components leak at exit from code that is unloaded by then
# (no frame can be named, so no suppression can match): leak checking is off for the ranks;
# every other check stays on, and tfm's own code is leak-checked by the one-process tests.
[ "${TFM_SANITIZE:-0}" = 1 ] && export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
mpi() { timeout 120 mpirun -np "$@"; }

copy_corpus 1500 > train.txt
arch=(--preset tiny --d-model 64 --ffn 128 --vocab-size 40 --seed 3)
sched=(--batch-tokens 512 --warmup 100 --lr-factor 0.5 --dropout 0.1 --log-every 4)  # what --resume takes again
run=("${arch[@]}" "${sched[@]}" --batch-parts 4 --save-every 8)
new=("${arch[@]}" "${sched[@]}" --batch-parts 4)
same_run() {  # same_run A B WHAT: the same weights and the same metrics (timings aside)
    if cmp -s "$1/model.safetensors" "$2/model.safetensors" &&
        diff <(cut -f1-7 "$1/metrics.tsv") <(cut -f1-7 "$2/metrics.tsv") >/dev/null; then ok
    else fail "$3: $(diff <(cut -f1-7 "$1/metrics.tsv") <(cut -f1-7 "$2/metrics.tsv") | head -4)"; fi
}

# One process, two threads: the reference.
expect_status 0 "one process" -- tfm-train --src train.txt --tgt train.txt -o ref "${run[@]}" --steps 24 --threads 2
for r in 1 2 4; do
    expect_status 0 "$r ranks" -- mpi "$r" tfm-train --src train.txt --tgt train.txt -o ranks$r "${run[@]}" --steps 24
    same_run ref ranks$r "$r ranks against one process"
done
expect_err '^tfm-train\[0\]: rank 0 of 4: 1 threads, batch parts 0 to 0 of 4$' "rank line"
expect_err '^tfm-train\[0\]: step 24 epoch [0-9]+ loss [0-9.]+ ppl [0-9.]+ lr [0-9.e-]+ [0-9]+ tokens/s, summing across 4 ranks [0-9.]+ ms and [0-9.]+ MB sent per update$' \
    "allreduce figures in the log"
grep -q 'tfm-train\[[123]\]: step' err && fail "a rank other than 0 logs steps" || ok
[ "$(ls ranks4/checkpoints | wc -l)" -eq 3 ] && ok || fail "checkpoints of 4 ranks: $(ls ranks4/checkpoints)"
grep -q '"batch_parts": 4' ranks4/checkpoints/step-0000000024/state.json && ok || fail "batch parts not recorded"

# bfloat16 products (--compute-type, where the CPU has the units): 1 and 2 ranks still train
# alike, and ranks agree on auto. Without the units (oneDNN's DNNL_MAX_CPU_ISA=AVX2 shows a CPU
# so), auto on every rank trains in float32, as one process does.
if tfm-train --src train.txt --tgt train.txt -o bf16probe "${run[@]}" --steps 1 --compute-type bfloat16 >/dev/null 2>&1; then
    expect_status 0 "one process, bfloat16" -- tfm-train --src train.txt --tgt train.txt -o ref16 "${run[@]}" --steps 8 \
        --threads 2 --compute-type bfloat16
    expect_status 0 "2 ranks, bfloat16" -- mpi 2 tfm-train --src train.txt --tgt train.txt -o ranks16 "${run[@]}" --steps 8 \
        --compute-type bfloat16
    same_run ref16 ranks16 "2 ranks in bfloat16 against one process"
fi
expect_status 0 "2 ranks, auto without the units" -- mpi 2 env DNNL_MAX_CPU_ISA=AVX2 tfm-train --src train.txt \
    --tgt train.txt -o auto2 "${run[@]}" --steps 8 --compute-type auto
expect_err '^tfm-train\[0\]: compute type auto: this CPU \(avx2\) has no bfloat16 units' "auto's note, once"
[ "$(grep -c 'compute type auto' err)" -eq 1 ] && ok || fail "auto's note said $(grep -c 'compute type auto' err) times"
expect_status 0 "one process, 8 updates" -- tfm-train --src train.txt --tgt train.txt -o ref8 "${run[@]}" --steps 8 --threads 2
same_run ref8 auto2 "2 ranks under auto without the units against float32"

# By default batches are cut into 4 parts, or a multiple of 4 and the ranks: 1, 2 and 4 ranks
# and one process train alike without being told.
expect_status 0 "default parts, 2 ranks" -- mpi 2 tfm-train --src train.txt --tgt train.txt -o default2 "${arch[@]}" \
    "${sched[@]}" --save-every 8 --steps 24
same_run ref default2 "2 ranks with the default parts against one process"
expect_status 0 "default parts, 3 ranks" -- mpi 3 tfm-train --src train.txt --tgt train.txt -o default3 "${arch[@]}" \
    "${sched[@]}" --steps 4
grep -q '"batch_parts": 12' default3/checkpoints/step-0000000004/state.json && ok || fail "parts of 3 ranks: $(cat default3/checkpoints/*/state.json)"
expect_status 2 "parts the ranks cannot share" -- mpi 2 tfm-train --src train.txt --tgt train.txt -o odd "${arch[@]}" "${sched[@]}" --steps 4 --batch-parts 3
expect_err 'batches cut into 3 parts cannot be shared by 2 ranks' "odd parts message"
[ -e odd/config.json ] && fail "a refused job left a model" || ok

# Resume across rank counts: 12 updates alone, 12 more as 2 ranks == 24 alone.
expect_status 0 "first half alone" -- tfm-train --src train.txt --tgt train.txt -o resumed "${run[@]}" --steps 12
expect_status 0 "second half on 2 ranks" -- mpi 2 tfm-train --src train.txt --tgt train.txt -o resumed --resume \
    "${sched[@]}" --save-every 8 --steps 24
same_run ref resumed "resumed on 2 ranks"
# A run of 1 part resumed on 2 ranks: the parts become 2, said once.
expect_status 0 "one part, alone" -- tfm-train --src train.txt --tgt train.txt -o onepart "${arch[@]}" "${sched[@]}" --steps 4 --batch-parts 1
expect_status 0 "one part, resumed on 2" -- mpi 2 tfm-train --src train.txt --tgt train.txt -o onepart --resume \
    "${sched[@]}" --steps 8
expect_err '^tfm-train\[0\]: the run cut batches into 1 parts, which 2 ranks cannot share: cutting them into 2' "parts message"

# rank_pid R: the process of rank R of the running job.
rank_pid() {
    local p
    for p in $(pgrep -x tfm-train); do
        { tr '\0' '\n' < /proc/$p/environ; } 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1" && { echo "$p"; return; }
    done
}
# left_running DIR: no rank of the job training into DIR is still alive (zombies aside).
left_running() {
    local p alive=
    sleep 1
    for p in $(pgrep -f -- "tfm-train .*-o $1 "); do
        [ "$(awk '{ print $3 }' /proc/$p/stat 2>/dev/null)" = Z ] || alive="$alive $p"
    done
    [ -z "$alive" ] && ok || fail "ranks of the job on $1 left running:$alive"
}
# wait_step DIR N: metrics.tsv of DIR has a row for step N or later (20 s at most).
wait_step() {
    local i
    for i in $(seq 200); do
        [ "$(awk -F'\t' 'NR > 1 { s = $1 } END { print s + 0 }' "$1/metrics.tsv" 2>/dev/null || echo 0)" -ge "$2" ] && return 0
        sleep 0.1
    done
    return 1
}

# signal_rank SIGNAL DIR STEP ARGS...: a 2-rank job trains into DIR (stderr in DIR.err); once
# it logs STEP, SIGNAL goes to rank 1 alone. Sets code (the job's status) and took (seconds
# from the signal to the job's end, which must be at most 20).
signal_rank() {
    local sig=$1 dir=$2 step=$3 job start
    shift 3
    mpi 2 tfm-train --src train.txt --tgt train.txt -o "$dir" "$@" --steps 100000 > "$dir.out" 2> "$dir.err" &
    job=$!
    wait_step "$dir" "$step" || fail "the job on $dir did not reach step $step: $(cat "$dir.err")"
    kill "-$sig" "$(rank_pid 1)"
    start=$SECONDS
    wait $job
    code=$?
    took=$((SECONDS - start))
    [ $took -le 20 ] && ok || fail "the job on $dir took $took s to end after SIG$sig to rank 1"
}

# SIGTERM to rank 1 alone: both ranks stop after the same update, rank 0 saves once.
signal_rank TERM stopped 8 "${new[@]}" --save-every 100000
stop_err=stopped.err
[ $code -eq 143 ] && ok || fail "exit $code after SIGTERM to rank 1, expected 143: $(tail -5 $stop_err)"
grep -q '^tfm-train\[0\]: interrupted: checkpoint saved in stopped/checkpoints/step-' $stop_err && ok || fail "rank 0's stop: $(tail -5 $stop_err)"
grep -q '^tfm-train\[1\]: stopped with the other ranks at step [0-9]*$' $stop_err && ok || fail "rank 1's stop: $(tail -5 $stop_err)"
ck=$(ls stopped/checkpoints)
[ "$(echo "$ck" | wc -l)" -eq 1 ] && ok || fail "checkpoints after the stop: $ck"
s=$((10#${ck#step-}))
grep -q "at step $s\$" $stop_err && ok || fail "rank 1 stopped at another step than rank 0's checkpoint $s"
# Resumed on 2 ranks to s + 8: the same as 1 process for s + 8 updates straight.
expect_status 0 "resume the stopped job" -- mpi 2 tfm-train --src train.txt --tgt train.txt -o stopped --resume \
    "${sched[@]}" --save-every 100000 --steps $((s + 8))
expect_status 0 "straight run to the same step" -- tfm-train --src train.txt --tgt train.txt -o straight "${new[@]}" \
    --steps $((s + 8)) --save-every 100000
cmp -s stopped/model.safetensors straight/model.safetensors && ok || fail "stopped and resumed differs from straight"

# SIGKILL to rank 1: the job ends within seconds with an error; the checkpoint stays usable.
signal_rank KILL killed 16 "${run[@]}"
[ $code -ne 0 ] && [ $code -ne 124 ] && ok || fail "exit $code after a rank was killed"
grep -Eqi 'signal 9|killed' killed.err && ok || fail "no word of the killed rank: $(tail -5 killed.err)"
left_running killed
last=$(ls killed/checkpoints | tail -1)
expect_status 0 "resume after a killed rank" -- mpi 2 tfm-train --src train.txt --tgt train.txt -o killed --resume \
    "${sched[@]}" --steps $((10#${last#step-} + 4))
expect_err "resuming from killed/checkpoints/$last" "resumed from the last checkpoint"

# A rank that cannot read its data ends the job with its own message.
cat > one_bad.sh <<'EOF'
src=train.txt
[ "$OMPI_COMM_WORLD_RANK" = 1 ] && src=short.txt
exec tfm-train --src "$src" --tgt train.txt "$@"
EOF
head -100 train.txt > short.txt
expect_status 1 "rank 1 cannot read its data" -- mpi 2 bash one_bad.sh -o bad "${arch[@]}" "${sched[@]}" --steps 4
expect_err '^tfm-train\[1\]: error: .*short\.txt.* lines' "rank 1's message"
left_running bad
# A rank that runs out of memory (a base model in 700 MB of address space) ends the job with
# its message. Not under ASan, which reserves terabytes of address space for itself.
if [ "${TFM_SANITIZE:-0}" != 1 ]; then
    cat > oom.sh <<'EOF'
[ "$OMPI_COMM_WORLD_RANK" = 1 ] && ulimit -v 700000
exec tfm-train "$@"
EOF
    expect_status 1 "rank 1 runs out of memory" -- mpi 2 bash oom.sh --src train.txt --tgt train.txt -o oom --preset base \
        --vocab-size 40 "${sched[@]}" --steps 2
    expect_err '^tfm-train\[1\]: error: out of memory$' "rank 1's message"
    left_running oom
fi
finish
