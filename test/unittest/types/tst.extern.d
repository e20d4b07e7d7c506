/* extern declares kernel objects' types: arrays of unknown size, pointers, functions. */
#pragma D option quiet

extern int ext_a[], ext_b[4][2];
extern int ext_c, *ext_d, **ext_e;
extern int ext_f(int, ...);
int proto(void);

BEGIN
{
	printf("declared\n");
	exit(0);
}
