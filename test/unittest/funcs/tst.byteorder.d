#pragma D option quiet

/*
 * Network byte order on this little-endian host: hton* and ntoh* swap
 * the bytes of their argument's width (a wider value is converted to
 * it first), of constants and variables alike, and have that width.
 */
BEGIN
{
	s = 0x1234;
	l = 0x11223344;
	ll = 0x1122334455667788;
	printf("%x %x %x %x\n", htons(s), ntohs(0x1234), htons(0x12345678), ntohs(ntohs(s)));
	printf("%x %x\n", htonl(l), ntohl(0x11223344));
	printf("%x %x\n", htonll(ll), ntohll(0x1122334455667788));
	printf("%d %d %d\n", sizeof (ntohs(s)), sizeof (ntohl(s)), sizeof (ntohll(s)));
	exit(0);
}
