#pragma D option quiet

/* curthread is the running task's struct task_struct, typed from the
   kernel's BTF: its members read as the built-in variables do. */
BEGIN
{
	printf("%d %d %d %d\n", curthread->comm == execname, curthread->pid == tid,
	    curthread->tgid == pid, curthread->real_parent->tgid == ppid);
	printf("%d %d\n", sizeof (curthread->comm), sizeof (*curthread) == sizeof (struct task_struct));
	printf("%d\n", (uint64_t)&curthread->comm == (uint64_t)curthread + offsetof(struct task_struct, comm));
	exit(0);
}
