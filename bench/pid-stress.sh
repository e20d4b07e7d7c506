#!/bin/bash
# Enables every instruction of the instrs fixture's functions (pid
# offset probes on each, entry and return), run after run, and checks
# that the target always ends normally with every call of `work` seen:
# a uprobe in the middle of an instruction, or a return probe that
# hijacks a word that is no return address, would crash or corrupt it.
#
#   bench/pid-stress.sh [RUNS]     # default 1000; needs root and cc
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1000}
dtrace=${DTRACE:-target/release/dtrace}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O1 -o "$tmp/instrs" test/fixtures/instrs.c
bad=0
for i in $(seq 1 "$runs"); do
    if ! out=$("$dtrace" -q \
        -n 'pid$target:a.out:work: { @ = count(); } END { printa("%@d\n", @); }' \
        -n 'pid$target:a.out:: { }' -c "$tmp/instrs 20" 2>"$tmp/err"); then
        echo "run $i: dtrace failed: $(cat "$tmp/err")"
        bad=$((bad + 1))
        continue
    fi
    # 20 calls, each firing entry, return and seven instructions.
    if [ "$(echo $out)" != 180 ] || grep -q "terminated\|exited with status" "$tmp/err"; then
        echo "run $i: $out / $(cat "$tmp/err")"
        bad=$((bad + 1))
    fi
done
echo "$runs runs, $bad bad"
[ "$bad" = 0 ]
