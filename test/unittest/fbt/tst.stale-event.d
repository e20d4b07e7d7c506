/* @@needs: kprobes !kprobe_multi */
/* @@trigger: sh stale-event.sh */
/* @@timeout: 240 */
#pragma D option quiet

/*
 * Without kprobe_multi links, a glob's functions are one kprobe event
 * defined in tracefs, which outlives a dtrace killed with SIGKILL; the
 * next dtrace to define one removes it (the target, stale-event.sh, says
 * what it saw).
 */
BEGIN
{
}
