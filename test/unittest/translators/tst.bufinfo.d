#pragma D option quiet

/*
 * Every member of bufinfo_t and devinfo_t translated from a struct bio
 * compiles against the kernel's types and passes the verifier; read from
 * a NULL bio, each that reads the bio faults ("invalid address"), is
 * reported through ERROR and tracing goes on. (Nothing hands a program a
 * real bio yet: the io provider will.)
 */
ERROR
{
	printf("epid %d fault %d\n", arg1, arg4);
}

BEGIN
{
	trace(xlate<bufinfo_t>((struct bio *)NULL).b_flags);
}

BEGIN
{
	trace(xlate<bufinfo_t>((struct bio *)NULL).b_bcount);
}

BEGIN
{
	trace(xlate<bufinfo_t>((struct bio *)NULL).b_lblkno);
}

BEGIN
{
	trace(xlate<bufinfo_t>((struct bio *)NULL).b_blkno);
}

BEGIN
{
	trace(xlate<bufinfo_t>((struct bio *)NULL).b_bufsize);
}

BEGIN
{
	trace(xlate<bufinfo_t>((struct bio *)NULL).b_iodone);
}

BEGIN
{
	trace(xlate<bufinfo_t>((struct bio *)NULL).b_error);
}

BEGIN
{
	trace(xlate<bufinfo_t>((struct bio *)NULL).b_edev);
}

BEGIN
{
	trace(xlate<devinfo_t *>((struct bio *)NULL)->dev_major);
}

BEGIN
{
	trace(xlate<devinfo_t *>((struct bio *)NULL)->dev_minor);
}

BEGIN
{
	trace(xlate<devinfo_t *>((struct bio *)NULL)->dev_name);
}

BEGIN
{
	trace(xlate<devinfo_t *>((struct bio *)NULL)->dev_statname);
}

BEGIN
{
	printf("%d %d\n", (uintptr_t)xlate<bufinfo_t>((struct bio *)NULL).b_addr,
	    xlate<bufinfo_t>((struct bio *)NULL).b_resid);
	printf("%d %s\n", xlate<devinfo_t>((struct bio *)NULL).dev_instance,
	    xlate<devinfo_t>((struct bio *)NULL).dev_pathname);
	printf("%x %x %x %x %x %x %x %x\n", B_BUSY, B_DONE, B_ERROR, B_PAGEIO,
	    B_PHYS, B_READ, B_WRITE, B_ASYNC);
	exit(0);
}
