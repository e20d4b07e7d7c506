#!/bin/bash
# fbt-all.sh: `fbt:::entry { @ = count(); }`, every function the kernel
# will probe, in a guest kernel (test/kernels/vm.sh), ended with SIGINT
# once tracing has begun; reports how long each phase took, what was
# counted, and that no kprobe was left behind. Longer than a test may take
# on kernels without kprobe_multi links (6.1: about 20 minutes), hence
# a script of its own rather than a trial of the D suite.
#
#   test/kernels/fbt-all.sh [SERIES]     SERIES: 5.10, 6.1 (default), 6.12
#
# Needs the release build (cargo build --release) and what vm.sh needs.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ "${1:-}" != --guest ]; then
    series=${1:-6.1}
    [ -x target/release/dtrace ] || { echo "fbt-all.sh: build first: cargo build --release" >&2; exit 2; }
    VM_TIMEOUT=${VM_TIMEOUT:-3600} exec test/kernels/vm.sh run "$series" "bash test/kernels/fbt-all.sh --guest"
fi

# In the guest.
mount -t debugfs none /sys/kernel/debug 2>/dev/null || true
kprobes() { wc -l < /sys/kernel/debug/kprobes/list; }
out=/tmp/fbt-all.out
start=$(date +%s)
target/release/dtrace -q -n '
BEGIN { printf("tracing\n"); }
fbt:::entry { @ = count(); }
END { printa("counted %@d\n", @); }' > "$out" 2>/tmp/fbt-all.err &
pid=$!
last=-1 defined= begun=
while kill -0 "$pid" 2>/dev/null; do
    sleep 10
    t=$(( $(date +%s) - start ))
    n=$(kprobes)
    # The probes are all defined when their number stops growing.
    if [ -z "$defined" ] && [ "$n" -gt 0 ] && [ "$n" -eq "$last" ]; then
        defined=$t
        echo "fbt-all: $n kprobes defined after ${t} s"
    fi
    last=$n
    if [ -z "$begun" ] && grep -q tracing "$out"; then
        begun=$t
        echo "fbt-all: tracing after ${t} s; SIGINT"
        kill -INT "$pid"
    fi
done
st=0
wait "$pid" || st=$?
t=$(( $(date +%s) - start ))
left=$(kprobes)
echo "fbt-all: dtrace exited with status $st after ${t} s (${begun:-?} s to begin), $left kprobes left"
grep counted "$out" || true
{ grep -v "left out" /tmp/fbt-all.err || true; } | sed 's/^/fbt-all: dtrace: /' | head -5
[ "$st" -eq 0 ] && [ -n "$begun" ] && [ "$left" -eq 0 ] && grep -q counted "$out"
