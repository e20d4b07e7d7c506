/* @@trigger: udp 47126 */
#pragma D option quiet

/*
 * The target sends one 5-byte datagram from a socket connected to its
 * own receiver on port 47126: udp:::send with the sending socket, then
 * udp:::receive, each with the UDP header (8 bytes and the data); a
 * translated pointer compares as the one it is translated from, so
 * args[3] != NULL says whether the packet has a socket (not yet, on
 * arrival).
 */
udp:::send,
udp:::receive
/args[4]->udp_dport == 47126/
{
	printf("%s length %d ipv%d payload %d socket %d\n", probename,
	    args[4]->udp_length, args[2]->ip_ver, args[2]->ip_plength,
	    args[3] != NULL);
}

udp:::send
/args[4]->udp_dport == 47126/
{
	printf("from a socket connected to port %d, its own port %d\n",
	    args[3]->udps_rport, args[3]->udps_lport == args[4]->udp_sport);
	printf("from %s to %s\n", args[3]->udps_laddr, args[3]->udps_raddr);
}
