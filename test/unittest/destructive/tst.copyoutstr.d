/* @@needs: probe_write_user */
/* @@runtest-opts: -w */
/* @@trigger: /bin/echo hello, world */
#pragma D option quiet

/* copyoutstr() rewrites what the traced process is about to write. */
syscall::write:entry
/pid == $target/
{
	copyoutstr("HELLO", arg1, 5);
}
