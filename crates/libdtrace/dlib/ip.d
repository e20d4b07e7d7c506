/*
 * The network providers' packet types, as the Dynamic Tracing Guide
 * describes them, translated from Linux's struct sk_buff and the IP,
 * TCP and UDP headers it holds: pktinfo_t, csinfo_t, ipinfo_t, ifinfo_t
 * (ip, tcp and udp probes), tcpinfo_t (tcp), udpinfo_t and udpsinfo_t
 * (udp), and the inlines the providers' tables use to find the headers
 * and tell the protocols apart.
 *
 * Where the probes fire: a packet leaving is seen as it is queued to its
 * device (net:net_dev_queue), its IP header at head + network_header; a
 * packet arriving as the device hands it to the stack
 * (net:netif_receive_skb), its IP header at data, before any socket is
 * looked up (so an arriving packet has no struct sock: csinfo_t's
 * cs_addr is 0, and the tcp and udp probes' socket arguments cannot be
 * read). The providers' tables give the IP header's address as the
 * probes' arg2 for either direction; the other translations start from
 * it. Header fields are converted to host order.
 * Addresses as strings (ip_saddr, ip_daddr, udps_laddr, udps_raddr)
 * need inet_ntop and are not defined yet; nor is cs_pid (the packet
 * does not say which process it is for): a script reading one gets the
 * translator's "does not define conversion" error.
 */

inline int IPPROTO_TCP = 6;
inline int IPPROTO_UDP = 17;

typedef struct pktinfo {
	uintptr_t pkt_addr;	/* the struct sk_buff */
} pktinfo_t;

typedef struct csinfo {
	uintptr_t cs_addr;	/* the struct sock, 0 if none */
	uint64_t cs_cid;	/* the same, as an identifier */
	pid_t	cs_pid;		/* not defined */
	zoneid_t cs_zoneid;	/* 0: Linux has no zones */
} csinfo_t;

typedef struct ipinfo {
	uint8_t	ip_ver;		/* 4 or 6 */
	uint32_t ip_plength;	/* payload length: after the IP header */
	string	ip_saddr;	/* not defined: needs inet_ntop */
	string	ip_daddr;	/* not defined: needs inet_ntop */
} ipinfo_t;

typedef struct ifinfo {
	string	if_name;	/* the device's name */
	int8_t	if_local;	/* 1 for the loopback device */
	int	if_ipstack;	/* 0: one network namespace is not told apart */
	uintptr_t if_addr;	/* the struct net_device */
} ifinfo_t;

typedef struct tcpinfo {
	uint16_t tcp_sport;
	uint16_t tcp_dport;
	uint32_t tcp_seq;
	uint32_t tcp_ack;
	uint8_t	tcp_offset;	/* header length in bytes */
	uint8_t	tcp_flags;	/* TH_FIN, TH_SYN ... */
	uint16_t tcp_window;
	uint16_t tcp_checksum;
	uint16_t tcp_urgent;
	uintptr_t tcp_hdr;	/* the struct tcphdr */
} tcpinfo_t;

typedef struct udpinfo {
	uint16_t udp_sport;
	uint16_t udp_dport;
	uint16_t udp_length;
	uint16_t udp_checksum;
	uintptr_t udp_hdr;	/* the struct udphdr */
} udpinfo_t;

typedef struct udpsinfo {
	uintptr_t udps_addr;	/* the struct sock */
	uint16_t udps_lport;
	uint16_t udps_rport;
	string	udps_laddr;	/* not defined: needs inet_ntop */
	string	udps_raddr;	/* not defined: needs inet_ntop */
} udpsinfo_t;

inline uint8_t TH_FIN = 0x01;
inline uint8_t TH_SYN = 0x02;
inline uint8_t TH_RST = 0x04;
inline uint8_t TH_PUSH = 0x08;
inline uint8_t TH_ACK = 0x10;
inline uint8_t TH_URG = 0x20;
inline uint8_t TH_ECE = 0x40;
inline uint8_t TH_CWR = 0x80;

/* Network order to host order. */
inline uint16_t __ntohs[uint16_t X] = ((X & 0xff) << 8) | ((X >> 8) & 0xff);
inline uint32_t __ntohl[uint32_t X] = ((X & 0xff) << 24) | ((X & 0xff00) << 8) |
    ((X >> 8) & 0xff00) | ((X >> 24) & 0xff);

translator pktinfo_t < struct sk_buff *S > {
	pkt_addr = (uintptr_t)S;
};

translator csinfo_t < struct sk_buff *S > {
	cs_addr = (uintptr_t)S->sk;
	cs_cid = (uint64_t)S->sk;
	cs_zoneid = 0;
};

/* From the IP header, version 4 or 6 (both start with the version). */
translator ipinfo_t < struct iphdr *I > {
	ip_ver = I->version;
	ip_plength = I->version == 4 ?
	    __ntohs[I->tot_len] - (I->ihl << 2) :
	    __ntohs[((struct ipv6hdr *)I)->payload_len];
};

translator ifinfo_t < struct sk_buff *S > {
	if_name = S->dev->name;
	if_local = (S->dev->flags & 0x8) != 0;	/* IFF_LOOPBACK */
	if_ipstack = 0;
	if_addr = (uintptr_t)S->dev;
};

translator tcpinfo_t < struct tcphdr *T > {
	tcp_sport = __ntohs[T->source];
	tcp_dport = __ntohs[T->dest];
	tcp_seq = __ntohl[T->seq];
	tcp_ack = __ntohl[T->ack_seq];
	tcp_offset = T->doff << 2;
	tcp_flags = ((uint8_t *)T)[13];
	tcp_window = __ntohs[T->window];
	tcp_checksum = __ntohs[T->check];
	tcp_urgent = __ntohs[T->urg_ptr];
	tcp_hdr = (uintptr_t)T;
};

translator udpinfo_t < struct udphdr *U > {
	udp_sport = __ntohs[U->source];
	udp_dport = __ntohs[U->dest];
	udp_length = __ntohs[U->len];
	udp_checksum = __ntohs[U->check];
	udp_hdr = (uintptr_t)U;
};

translator udpsinfo_t < struct sock *S > {
	udps_addr = (uintptr_t)S;
	udps_lport = S->__sk_common.skc_num;
	udps_rport = __ntohs[S->__sk_common.skc_dport];
};

/*
 * The IP header's protocol, and where the transport header is after it
 * (IPv6 extension headers are not walked).
 */
inline int __ip_proto[struct iphdr *I] = I->version == 4 ? I->protocol :
    ((struct ipv6hdr *)I)->nexthdr;
inline uintptr_t __ip_l4[struct iphdr *I] =
    (uintptr_t)I + (I->version == 4 ? I->ihl << 2 : 40);

/*
 * The providers' conditions: a packet of IP (ETH_P_IP or ETH_P_IPV6, in
 * network order), of TCP, of UDP.
 */
inline int __ip_is_ip[struct sk_buff *S] =
    S->protocol == 0x0008 || S->protocol == 0xdd86;
inline int __ip_is_tcp[struct iphdr *I] = __ip_proto[I] == IPPROTO_TCP;
inline int __ip_is_udp[struct iphdr *I] = __ip_proto[I] == IPPROTO_UDP;

/* A TCP segment with SYN and without ACK: a connection's first. */
inline int __tcp_is_syn[struct iphdr *I] =
    (((uint8_t *)__ip_l4[I])[13] & (TH_SYN | TH_ACK)) == TH_SYN;

/*
 * tcp:::accept-refused describes the reset sent in reply to a refused
 * SYN, as on Solaris; the kernel's hook has the SYN, so the reply is
 * worked out from it (RFC 793: RST|ACK, sequence 0, acknowledging the
 * SYN). Its checksum and header address are not defined: the segment
 * is not built yet.
 */
struct __dtrace_tcp_refusal {
	uint8_t __syn;
};
translator tcpinfo_t < struct __dtrace_tcp_refusal *R > {
	tcp_sport = __ntohs[((struct tcphdr *)R)->dest];
	tcp_dport = __ntohs[((struct tcphdr *)R)->source];
	tcp_seq = 0;
	tcp_ack = __ntohl[((struct tcphdr *)R)->seq] + 1;
	tcp_offset = 20;
	tcp_flags = TH_RST | TH_ACK;
	tcp_window = 0;
	tcp_urgent = 0;
};

/* The probes' arguments that come from the IP header or the socket. */
inline tcpinfo_t *__tcpinfo_refusal[struct iphdr *I] =
    xlate<tcpinfo_t *>((struct __dtrace_tcp_refusal *)__ip_l4[I]);
inline tcpinfo_t *__tcpinfo_ip[struct iphdr *I] =
    xlate<tcpinfo_t *>((struct tcphdr *)__ip_l4[I]);
inline udpinfo_t *__udpinfo_ip[struct iphdr *I] =
    xlate<udpinfo_t *>((struct udphdr *)__ip_l4[I]);
inline udpsinfo_t *__udpsinfo_skb[struct sk_buff *S] =
    xlate<udpsinfo_t *>(S->sk);
