/*
 * The tcp provider's types, as the Dynamic Tracing Guide describes them,
 * translated from Linux's struct sock (a subset: see below).
 *
 * tcpsinfo_t, from struct sock *: the connection's state.
 * tcplsinfo_t, from an int: the previous state of a state change.
 *
 * The TCP_STATE_* values are Linux's own state numbers (which DTrace for
 * Linux also uses). Addresses (tcps_laddr, tcps_raddr) are written as
 * inet_ntop writes them (AF_INET 2, AF_INET6 10). The members the Guide
 * takes from Solaris's TCP control block that Linux does not keep
 * (tcps_active, tcps_rto...) are not defined: a script reading one gets
 * the translator's "does not define conversion" error.
 */

inline int TCP_STATE_IDLE = 0;
inline int TCP_STATE_ESTABLISHED = 1;
inline int TCP_STATE_SYN_SENT = 2;
inline int TCP_STATE_SYN_RECEIVED = 3;
inline int TCP_STATE_FIN_WAIT_1 = 4;
inline int TCP_STATE_FIN_WAIT_2 = 5;
inline int TCP_STATE_TIME_WAIT = 6;
inline int TCP_STATE_CLOSED = 7;
inline int TCP_STATE_CLOSE_WAIT = 8;
inline int TCP_STATE_LAST_ACK = 9;
inline int TCP_STATE_LISTEN = 10;
inline int TCP_STATE_CLOSING = 11;

typedef struct tcpsinfo {
	uintptr_t tcps_addr;	/* the socket's address */
	int	tcps_local;	/* 1 if both ends have one IPv4 address */
	uint16_t tcps_lport;	/* local port */
	uint16_t tcps_rport;	/* remote port */
	string	tcps_laddr;	/* local address, as inet_ntop writes it */
	string	tcps_raddr;	/* remote address */
	int	tcps_state;	/* TCP_STATE_* */
	uint32_t tcps_iss;	/* not defined: Linux keeps no initial sequence */
	uint32_t tcps_suna;	/* oldest unacknowledged sequence number */
	uint32_t tcps_snxt;	/* next sequence number to send */
	uint32_t tcps_rnxt;	/* next sequence number expected */
	uint32_t tcps_swnd;	/* send window */
	uint32_t tcps_rwnd;	/* receive window */
	uint32_t tcps_mss;	/* maximum segment size */
} tcpsinfo_t;

typedef struct tcplsinfo {
	int	tcps_state;	/* the previous TCP_STATE_* */
} tcplsinfo_t;

/*
 * Ports: the local one in host order; the remote one converted from
 * network order. tcps_state is the state-change probes' args[6], the new state:
 * the socket still holds the old one when its state-change tracepoint
 * fires; the send and receive probes have no args[6] (0, never a Linux
 * state), and there it is the socket's state.
 */
translator tcpsinfo_t < struct sock *S > {
	tcps_addr = (uintptr_t)S;
	tcps_local = S->__sk_common.skc_rcv_saddr == S->__sk_common.skc_daddr;
	tcps_lport = S->__sk_common.skc_num;
	tcps_rport = ntohs(S->__sk_common.skc_dport);
	tcps_laddr = S->__sk_common.skc_family == 2 ?
	    inet_ntoa(&S->__sk_common.skc_rcv_saddr) :
	    inet_ntop(10, &S->__sk_common.skc_v6_rcv_saddr);
	tcps_raddr = S->__sk_common.skc_family == 2 ?
	    inet_ntoa(&S->__sk_common.skc_daddr) :
	    inet_ntop(10, &S->__sk_common.skc_v6_daddr);
	tcps_state = arg6 != 0 ? arg6 : S->__sk_common.skc_state;
	tcps_suna = ((struct tcp_sock *)S)->snd_una;
	tcps_snxt = ((struct tcp_sock *)S)->snd_nxt;
	tcps_rnxt = ((struct tcp_sock *)S)->rcv_nxt;
	tcps_swnd = ((struct tcp_sock *)S)->snd_wnd;
	tcps_rwnd = ((struct tcp_sock *)S)->rcv_wnd;
	tcps_mss = ((struct tcp_sock *)S)->mss_cache;
};

translator tcplsinfo_t < int I > {
	tcps_state = I;
};

/* tcp:::send and receive: the socket of a packet (none on arrival). */
inline tcpsinfo_t *__tcpsinfo_skb[struct sk_buff *S] =
    xlate<tcpsinfo_t *>(S->sk);
