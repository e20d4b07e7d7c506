#pragma D option quiet

/* %wc prints a wide character (UTF-8 on output), %ws a wide string. */
int w[4];

BEGIN
{
	w[0] = 0x48;
	w[1] = 0x263a;
	w[2] = 0x21;
	printf("[%wc] [%3wc] [%ws]\n", 0x263a, 0x41, w);
	exit(0);
}
