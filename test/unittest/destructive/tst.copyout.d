/* @@needs: probe_write_user */
/* @@runtest-opts: -w */
/* @@trigger: /bin/echo hello, world */
#pragma D option quiet

/* copyout() writes bytes from the kernel (the process's name, "echo")
   over the first four of the traced process's buffer ("hell"). */
syscall::write:entry
/pid == $target/
{
	copyout((void *)curthread->comm, arg1, 4);
}
