/* @@trigger: read /proc/version */
#pragma D option quiet

/*
 * fileinfo_t's directory and mount point are the last components of the
 * parent directory's and the mount point's paths; O_* name the open flags
 * (a 64-bit kernel opens every file O_LARGEFILE).
 */
syscall::read:entry
/pid == $target && fds[arg0].fi_name == "version"/
{
	printf("%s %s %s\n", fds[arg0].fi_name, fds[arg0].fi_dirname,
	    fds[arg0].fi_mount);
	printf("%d %d %d\n", (fds[arg0].fi_oflags & O_ACCMODE) == O_RDONLY,
	    (fds[arg0].fi_oflags & O_LARGEFILE) == O_LARGEFILE,
	    (fds[arg0].fi_oflags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)) == 0);
	printf("%s %s\n", fds[-1].fi_dirname, fds[-1].fi_mount);
}
