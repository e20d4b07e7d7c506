/* @@trigger: fixture instrs 3 */

#pragma D option quiet

/*
 * Offset probes on instruction boundaries fire where each instruction
 * begins: at 8 (mov %edi,%eax) the argument is still in %rdi, and at d
 * (leave) the result is in %rax.
 */
pid$target:a.out:work:8
{
	printf("%s %d\n", probename, arg0);
}

pid$target:a.out:work:d
{
	printf("%s %d\n", probename, uregs[R_RAX]);
}

pid$target:a.out:work:*1
{
	printf("%s\n", probename);
}
