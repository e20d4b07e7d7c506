/* @@trigger: tcp 47124 */
#pragma D option quiet

/*
 * The target connects to its own listener on port 47124: the SYN and
 * the SYN-ACK each leave (send, with the socket that sends them) and
 * arrive (receive, no socket yet), in that order. One clause serves
 * both probes: their arguments have the same types.
 */
tcp:::send,
tcp:::receive
/(args[4]->tcp_sport == 47124 || args[4]->tcp_dport == 47124) &&
    (args[4]->tcp_flags & TH_SYN)/
{
	printf("%s ipv%d %s -> %s %s to the %s, header only %d, socket %d\n",
	    probename, args[2]->ip_ver, args[2]->ip_saddr, args[2]->ip_daddr,
	    (args[4]->tcp_flags & TH_ACK) ? "SYN-ACK" : "SYN",
	    args[4]->tcp_dport == 47124 ? "listener" : "client",
	    args[4]->tcp_offset == args[2]->ip_plength, args[1]->cs_addr != 0);
}

tcp:::send
/args[4]->tcp_dport == 47124 && (args[4]->tcp_flags & TH_SYN)/
{
	printf("the client's socket: %s to %s:%d, state %s\n",
	    args[3]->tcps_laddr, args[3]->tcps_raddr, args[3]->tcps_rport,
	    args[3]->tcps_state == TCP_STATE_SYN_SENT ? "SYN_SENT" : "other");
}
