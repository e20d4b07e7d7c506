/* @@trigger: udp 47125 */
#pragma D option quiet

/*
 * The target sends one 5-byte UDP datagram to itself on port 47125 over
 * the loopback device: it leaves and arrives as one IPv4 packet with 13
 * bytes of payload (the UDP header and the data). arg2 is the packet's
 * IP header.
 */
ip:::send,
ip:::receive
/args[2]->ip_ver == 4 && ((struct iphdr *)arg2)->protocol == IPPROTO_UDP &&
    ntohs(((struct udphdr *)(arg2 + 20))->dest) == 47125/
{
	printf("%s ipv%d payload %d on %s local %d\n", probename,
	    args[2]->ip_ver, args[2]->ip_plength, args[3]->if_name,
	    args[3]->if_local);
}
