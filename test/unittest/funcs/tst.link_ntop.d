/*
 * link_ntop(): an Ethernet or InfiniBand address as lower-case hex bytes
 * joined by ':'; another link type is an illegal operation.
 */
#pragma D option quiet

BEGIN
{
	m = (uint8_t *)alloca(20);
	m[0] = 0x00;
	m[1] = 0x1b;
	m[2] = 0x21;
	m[3] = 0xab;
	m[4] = 0xcd;
	m[5] = 0xef;
	m[19] = 0xff;
	printf("%s\n%s\n", link_ntop(ARPHRD_ETHER, m), link_ntop(ARPHRD_INFINIBAND, m));
}

BEGIN
{
	printf("%s\n", link_ntop(7, curthread));
}

BEGIN
{
	exit(0);
}
