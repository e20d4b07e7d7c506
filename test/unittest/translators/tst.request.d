#pragma D option quiet

/*
 * bufinfo_t and devinfo_t translated from a struct request (the io
 * provider's arguments) and devinfo_t from a struct block_device compile
 * against this kernel's block layer, whichever form it has (io_bdev.d or
 * io_gendisk.d), and pass the verifier. Read from NULL, a member that
 * reads the request faults and is reported through ERROR; a device that
 * is NULL is DTrace for Linux's "<none>".
 */
ERROR
{
	printf("epid %d fault %d\n", arg1, arg4);
}

BEGIN
{
	trace(xlate<bufinfo_t>((struct request *)NULL).b_flags);
}

BEGIN
{
	trace(xlate<bufinfo_t>((struct request *)NULL).b_bcount);
}

BEGIN
{
	trace(xlate<bufinfo_t>((struct request *)NULL).b_edev);
}

BEGIN
{
	trace(xlate<devinfo_t>((struct request *)NULL).dev_major);
}

BEGIN
{
	trace(xlate<devinfo_t>((struct request *)NULL).dev_name);
}

BEGIN
{
	trace(xlate<devinfo_t>((struct request *)NULL).dev_statname);
}

BEGIN
{
	printf("%d %d %s %s\n",
	    xlate<devinfo_t>((struct block_device *)NULL).dev_major,
	    xlate<devinfo_t>((struct block_device *)NULL).dev_minor,
	    xlate<devinfo_t>((struct block_device *)NULL).dev_name,
	    xlate<devinfo_t>((struct block_device *)NULL).dev_statname);
	printf("%d %s\n", xlate<devinfo_t>((struct request *)NULL).dev_instance,
	    xlate<devinfo_t>((struct request *)NULL).dev_pathname);
	exit(0);
}
