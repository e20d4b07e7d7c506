/*
 * A target that execs: its pid probes are those of the image they were
 * made for, and end with it, as DTrace's do, though the new image maps
 * the same executable and libc. Only the first image's calls are seen;
 * proc:::exec-success shows both execs.
 */
/* @@trigger: fixture reexec 1 */

#pragma D option quiet

proc:::exec-success
/pid == $target/
{
	printf("exec\n");
}

pid$target::atoi:entry
{
	printf("atoi %s\n", copyinstr(arg0));
}

pid$target:a.out:dtt_step:entry
{
	printf("dtt_step %d\n", arg0);
}
