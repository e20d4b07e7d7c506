/* @@trigger: fault */
#pragma D option quiet
#pragma D option aggsortkey

/*
 * The target reads a fresh page (a fault), writes it (a fault on a
 * present page: prot_fault) and has read(2) fill another (a fault taken
 * in the kernel: kernel_asflt). Each is also an as_fault.
 */
vminfo:::as_fault,
vminfo:::prot_fault,
vminfo:::kernel_asflt
/pid == $target/
{
	@[probename] = sum(arg0);
}

END
{
	printa("%s\n", @);
}
