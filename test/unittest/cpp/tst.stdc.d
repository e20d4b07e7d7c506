/*
 * -X c asks for strictly conforming ISO C (GNU cpp's -std=c17, which
 * defines __STRICT_ANSI__).
 */
/* @@runtest-opts: -C -X c */
#pragma D option quiet

BEGIN
{
#ifdef __STRICT_ANSI__
	printf("strict\n");
#endif
	exit(0);
}
