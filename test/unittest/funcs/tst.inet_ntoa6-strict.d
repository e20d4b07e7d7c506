#pragma D option quiet

/*
 * inet_ntoa6()'s second argument: nonzero writes an IPv4-compatible or
 * -mapped address as inet_ntop() does, zero as its dotted quad.
 */
BEGIN
{
	this->p = (uint32_t *)alloca(16);
	this->p[0] = 0;
	this->p[1] = 0;
	this->p[2] = htonl(0xffff);
	this->p[3] = htonl(0x7f000001);
	printf("%s %s %s\n", inet_ntoa6((struct in6_addr *)this->p),
	    inet_ntoa6((struct in6_addr *)this->p, 0),
	    inet_ntoa6((struct in6_addr *)this->p, 1));
	this->p[2] = 0;
	printf("%s %s\n", inet_ntoa6((struct in6_addr *)this->p, 0),
	    inet_ntoa6((struct in6_addr *)this->p, 7));
	exit(0);
}
