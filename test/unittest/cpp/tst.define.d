/*
 * -C runs the C preprocessor: -D defines names, with or without a value,
 * and DTrace's own names are defined.
 */
/* @@runtest-opts: -C -DVAL=5 -DFLAG */
#pragma D option quiet

BEGIN
{
#ifdef FLAG
	printf("%d %d %d\n", VAL, __SUNW_D, __SUNW_D_VERSION);
#endif
#if defined(__linux) && defined(__SUNW_D_64)
	printf("linux, 64-bit\n");
#endif
	exit(0);
}
