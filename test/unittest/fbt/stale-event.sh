#!/bin/sh
# The target of tst.stale-event.d: a dtrace killed (SIGKILL: nothing of
# it runs) while its kprobe event stands leaves the event defined in
# tracefs; the next dtrace to define one removes it, and its own when it
# exits. The dtrace that runs this script is its parent.
D=$(readlink /proc/$PPID/exe)
T=/sys/kernel/tracing
OUT=/tmp/dtrace-stale-event.$$
$D -qn 'fbt::vfs_*:entry { @ = count(); } BEGIN { printf("up\n"); }' > $OUT 2>&1 &
P=$!
n=0
until grep -q up $OUT; do
	n=$((n + 1))
	if [ $n -gt 1500 ] || ! kill -0 $P 2>/dev/null; then
		echo "the first dtrace did not start:"; cat $OUT; exit 1
	fi
	sleep 0.1
done
kill -9 $P
wait $P 2>/dev/null
grep -q "^p:dtrace_$P/fbt_entry_" $T/kprobe_events && echo "killed: its event is left"
$D -qn 'fbt::vfs_*:entry { @ = count(); } BEGIN { exit(0); }' > $OUT 2>&1 &
Q=$!
wait $Q
grep -q "dtrace_$P/" $T/kprobe_events || echo "next: the event is removed"
grep -q "dtrace_$Q/" $T/kprobe_events || echo "and its own when it exits"
rm -f $OUT
