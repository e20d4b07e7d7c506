/* @@trigger: tcp 47123 */
#pragma D option quiet

/*
 * The target connects to its own listener on port 47123: the connecting
 * socket's connect-established and the accepted one's
 * accept-established, with tcpsinfo_t (ports, the new state) and
 * tcplsinfo_t (the previous state).
 */
tcp:::accept-established
/args[3]->tcps_lport == 47123/
{
	@[probename, args[3]->tcps_lport, args[3]->tcps_state == TCP_STATE_ESTABLISHED,
	    args[5]->tcps_state == TCP_STATE_SYN_RECEIVED, args[3]->tcps_local] = count();
}

tcp:::connect-established
/args[3]->tcps_rport == 47123/
{
	@[probename, args[3]->tcps_rport, args[3]->tcps_state == TCP_STATE_ESTABLISHED,
	    args[5]->tcps_state == TCP_STATE_SYN_SENT, args[3]->tcps_local] = count();
}

END
{
	printa("%s %d %d %d %d %@d\n", @);
}
