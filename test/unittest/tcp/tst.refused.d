/* @@needs: tcp_reset_nosock|fentry */
/* @@trigger: refused 47127 */
#pragma D option quiet

/*
 * The target connects to port 47127, where nothing listens: its SYN
 * leaves (connect-request), the kernel refuses it with a reset
 * (accept-refused, whose args[4] is that reset: from the refused port
 * back to the client's, RST and ACK, acknowledging the SYN), and the
 * connecting socket goes from SYN_SENT to CLOSED (connect-refused).
 */
int cport;

tcp:::connect-request
/args[4]->tcp_dport == 47127/
{
	cport = args[4]->tcp_sport;
	printf("%s to %d, SYN %d, from the socket %d\n", probename,
	    args[4]->tcp_dport, args[4]->tcp_flags == TH_SYN,
	    args[3]->tcps_lport == cport);
}

tcp:::accept-refused
/args[4]->tcp_sport == 47127/
{
	printf("%s: reset from %d to the client %d, RST|ACK %d, seq %d, ack %d, ipv%d\n",
	    probename, args[4]->tcp_sport, args[4]->tcp_dport == cport,
	    args[4]->tcp_flags == (TH_RST | TH_ACK), args[4]->tcp_seq,
	    args[4]->tcp_ack != 0, args[2]->ip_ver);
}

tcp:::connect-refused
/args[3]->tcps_rport == 47127/
{
	printf("%s by %d\n", probename, args[3]->tcps_rport);
}
