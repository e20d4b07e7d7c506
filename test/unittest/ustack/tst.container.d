/*
 * A process in a mount namespace of its own with a private copy of a
 * library (as in a container) has its stack named from the copy it
 * maps, read through /proc/PID/map_files, not from the file at that path
 * outside: priv_side_work(), which the host's libnshost.so does not have.
 * The module is named as the process names it. The post-processor drops
 * offsets.
 */
/* @@trigger: fixture nsapp @fixture:libnshost @fixture:libnspriv */
#pragma D option quiet

syscall::getppid:entry
/pid == $target/
{
	ustack();
	exit(0);
}
