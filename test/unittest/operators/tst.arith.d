#pragma D option quiet

/* Integer arithmetic, including negative division and remainder. */
BEGIN
{
	x = 17;
	y = 5;
	printf("%d %d %d %d %d\n", x + y, x - y, x * y, x / y, x % y);
	printf("%d %d\n", -x / y, -x % y);
	printf("%d %d\n", -x, +x);
	printf("%u\n", 0U - 1);
	z = 10;
	z += 5; printf("%d ", z);
	z -= 3; printf("%d ", z);
	z *= 2; printf("%d ", z);
	z /= 4; printf("%d ", z);
	z %= 4; printf("%d ", z);
	z <<= 3; printf("%d ", z);
	z >>= 1; printf("%d ", z);
	z |= 1; printf("%d ", z);
	z &= 3; printf("%d ", z);
	z ^= 7; printf("%d\n", z);
	i = 1;
	printf("%d %d %d %d %d\n", i++, i, ++i, i--, --i);
	exit(0);
}
