#!/usr/bin/env bash
# run_fuzz.sh TARGET SEED_DIR SECONDS: fuzzes from a scratch copy of the seeds (the committed
# corpus is never written to) for SECONDS, or $TFM_FUZZ_SECONDS when set (make fuzz); a
# crash, leak, timeout or sanitizer report fails the test and leaves the reproducer (crash-*, leak-*, timeout-*) in the working directory.
set -eu
target=$1 seeds=$2 seconds=${TFM_FUZZ_SECONDS:-$3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$seeds/." "$work/"
"$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
    "$work" 2>&1 | grep -E '^(#[0-9]+ *DONE|Done|stat::|==[0-9]+==ERROR|SUMMARY|.*(crash|leak|timeout)-)' || true
exit "${PIPESTATUS[0]}"
