#!/bin/bash
# The soak: dtrace under an every-system-call printf and aggregation load
# for a given time, reporting each second its memory (VmRSS) and the drops
# it has reported, then checking that nothing is left in the kernel.
#
#   bench/soak.sh [SECONDS]      (default 3600; needs root)
#
# DTRACE and BPF_OBJECTS name other binaries to soak (e.g. a copy, so
# that rebuilding meanwhile does not disturb the run).
#
# The load is `dd` copying one byte at a time (two system calls a byte)
# on every CPU but one; dtrace's output goes to /dev/null and its
# messages (drop reports) to a log. At the end it prints the RSS after
# warm-up, the largest RSS, the growth in per cent, the drops reported,
# and the BPF programs, maps and links of dtrace still alive (must be 0).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-3600}
warmup=30
cargo build --release -j2 -p dtrace --example bpf_objects -p dtrace-sys >/dev/null 2>&1 \
    || cargo build --release -j2 -p dtrace -p dtrace-sys --example bpf_objects
dtrace=${DTRACE:-target/release/dtrace}
objects=${BPF_OBJECTS:-target/release/examples/bpf_objects}
log=$(mktemp /tmp/soak.XXXXXX)

# dtrace's programs and maps are named dt_*; links have no names.
ours() { "$objects" | awk '$1 != "links" && $NF ~ /^dt_/ { n++ } $1 == "links" { n += $2 } END { print n + 0 }'; }
before=$(ours)

loads=()
n=$(( $(nproc) > 1 ? $(nproc) - 1 : 1 ))
for _ in $(seq "$n"); do
    dd if=/dev/zero of=/dev/null bs=1 status=none &
    loads+=($!)
done
cleanup() { kill "${loads[@]}" 2>/dev/null || true; }
trap cleanup EXIT

"$dtrace" -q -n '
syscall:::entry { printf("%d %s %s\n", pid, execname, probefunc); @calls[probefunc] = count(); }
syscall:::return /arg0 < 0/ { @errors[probefunc, errno] = count(); }
tick-10s { printa(@calls); trunc(@calls, 0); }
' >/dev/null 2>"$log" &
dt=$!

rss() { awk '/^VmRSS/ { print $2 }' "/proc/$dt/status" 2>/dev/null || echo 0; }
drops() {
    awk '/drops? on CPU/ { n += $2 } /dynamic variable drop|aggregation drop/ { n += $2 }
         END { print n + 0 }' "$log"
}

printf '%6s %10s %10s\n' second rss_kb drops
base=0; peak=0
for t in $(seq 1 "$secs"); do
    sleep 1
    kill -0 "$dt" 2>/dev/null || { echo "dtrace died: $(cat "$log")"; exit 1; }
    r=$(rss); d=$(drops)
    printf '%6d %10d %10d\n' "$t" "$r" "$d"
    if [ "$t" -eq "$warmup" ]; then base=$r; fi
    if [ "$t" -ge "$warmup" ] && [ "$r" -gt "$peak" ]; then peak=$r; fi
done

kill -INT "$dt"
status=0; wait "$dt" || status=$?
cleanup
# Maps are freed by the kernel some time after their last user goes.
left=0
for _ in $(seq 30); do
    left=$(( $(ours) - before )); [ "$left" -le 0 ] && break; sleep 1
done
growth=$(awk -v b="$base" -v p="$peak" 'BEGIN { if (b > 0) printf "%.1f", (p - b) * 100 / b; else print "n/a" }')
echo "dtrace exit status: $status"
echo "rss after ${warmup}s: ${base} kB; peak after: ${peak} kB; growth: ${growth}%"
echo "drops reported: $(drops) (log: $log)"
echo "BPF objects of dtrace left after exit: $(( left > 0 ? left : 0 ))"
