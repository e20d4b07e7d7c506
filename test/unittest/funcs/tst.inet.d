/* @@trigger: udpsend 47130 20010db8000000000000000000000001 00000000000000000000000000000000 00000000000000000000000000000001 00000000000000000000ffffc0a80102 0000000000000000000000000a000001 fe80000000000000505400fffe123456 00010000000000020000000000000003 00010000000200030004000500060007 ff020000000000000000000000000001 20010db8000000000001000000000001 00010002000300040005000600070008 00010002000300040005000600070000 00000000000000000000000000000005 00120000000000000000000000000034 00000001000000000000000000000000 */
#pragma D option quiet

/*
 * inet_ntop(), inet_ntoa6() and inet_ntoa() of addresses the target
 * sends itself as UDP payloads (the bytes after the IPv4 and UDP
 * headers of ip:::send's packet): IPv6 with DTrace's zero-run
 * compression (the run its byte scan finds, so 2001:db8:0:0:1::1 and
 * 1::2:3:4:5:6:7 as DTrace writes them), IPv4-mapped and -compatible
 * addresses with a dotted quad (inet_ntoa6 gives the quad alone), and
 * the first four bytes as IPv4.
 */
ip:::send
/args[2]->ip_ver == 4 && ((struct iphdr *)arg2)->protocol == IPPROTO_UDP &&
    ntohs(((struct udphdr *)(arg2 + 20))->dest) == 47130/
{
	this->a = arg2 + 28;
	printf("%s %s %s\n", inet_ntop(AF_INET6, (void *)this->a),
	    inet_ntoa6((struct in6_addr *)this->a),
	    inet_ntoa((ipaddr_t *)this->a));
}
