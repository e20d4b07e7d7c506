/* @@trigger: udp 47128 */
#pragma D option quiet

/*
 * The one IPv4 datagram the target sends itself on port 47128, as
 * ip:::send's ipv4info_t sees its header: version, header length,
 * total length (20 + 8 + 5), protocol, and addresses (127.0.0.1, in
 * network order).
 */
ip:::send
/args[2]->ip_ver == 4 && args[4]->ipv4_protocol == IPPROTO_UDP &&
    ntohs(((struct udphdr *)(arg2 + 20))->dest) == 47128/
{
	printf("v%d ihl %d length %d protocol %d %s src %x dst %x hdr %d\n",
	    args[4]->ipv4_ver, args[4]->ipv4_ihl, args[4]->ipv4_length,
	    args[4]->ipv4_protocol, args[4]->ipv4_protostr,
	    args[4]->ipv4_src, args[4]->ipv4_dst, args[4]->ipv4_hdr == arg2);
	printf("%s -> %s, %s -> %s\n", args[4]->ipv4_saddr, args[4]->ipv4_daddr,
	    args[2]->ip_saddr, args[2]->ip_daddr);
}
