/* @@trigger: udp6 47129 */
#pragma D option quiet

/*
 * The one IPv6 datagram the target sends itself on port 47129 over the
 * loopback device, as ip:::send and ip:::receive see it: ipinfo_t and
 * ipv6info_t agree on the payload (8 + 5 bytes), the next header is
 * UDP, both addresses are ::1 (as text, and as the bytes at ipv6_src
 * and ipv6_dst), and the UDP header follows the 40-byte IPv6 header.
 */
ip:::send,
ip:::receive
/args[2]->ip_ver == 6 && args[5]->ipv6_nexthdr == IPPROTO_UDP &&
    ntohs(((struct udphdr *)(arg2 + 40))->dest) == 47129/
{
	printf("%s %s -> %s, %s -> %s\n", probename, args[2]->ip_saddr,
	    args[2]->ip_daddr, args[5]->ipv6_saddr, args[5]->ipv6_daddr);
	printf("%s v%d payload %d %d next %s loopback %d %d\n", probename,
	    args[5]->ipv6_ver, args[2]->ip_plength, args[5]->ipv6_plen,
	    args[5]->ipv6_nextstr,
	    ((struct in6_addr *)args[5]->ipv6_src)->in6_u.u6_addr32[3] == 0x01000000,
	    ((struct in6_addr *)args[5]->ipv6_dst)->in6_u.u6_addr32[3] == 0x01000000);
}
