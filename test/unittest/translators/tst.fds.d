/* @@trigger: read /proc/version */
#pragma D option quiet

/* fds[] describes the process's file descriptors (fileinfo_t). */
syscall::read:entry
/pid == $target && fds[arg0].fi_name == "version"/
{
	printf("%s %s %d %d\n", fds[arg0].fi_name, fds[arg0].fi_fs,
	    fds[arg0].fi_offset, fds[arg0].fi_oflags & 3);
	printf("%s %s\n", fds[-1].fi_name, fds[1 << 30].fi_fs);
	printf("%s %s\n", fds[arg0].fi_pathname, fds[-1].fi_pathname);
}
