/*
 * The network providers' packet types, as the Dynamic Tracing Guide
 * describes them, translated from Linux's struct sk_buff and the IP,
 * TCP and UDP headers it holds: pktinfo_t, csinfo_t, ipinfo_t, ifinfo_t,
 * ipv4info_t, ipv6info_t (ip, tcp and udp probes), tcpinfo_t (tcp),
 * udpinfo_t and udpsinfo_t (udp), and the inlines the providers' tables
 * use to find the headers and tell the protocols apart.
 *
 * Where the probes fire: a packet leaving is seen as it is queued to its
 * device (net:net_dev_queue), its IP header at head + network_header; a
 * packet arriving as the device hands it to the stack
 * (net:netif_receive_skb), its IP header at data, before any socket is
 * looked up (so an arriving packet has no struct sock: csinfo_t's
 * cs_addr is 0, and the tcp and udp probes' socket arguments cannot be
 * read). The providers' tables give the IP header's address as the
 * probes' arg2 for either direction; the other translations start from
 * it. Header fields are converted to host order; addresses as strings
 * are written as inet_ntop writes them. cs_pid is not defined (the
 * packet does not say which process it is for): a script reading it
 * gets the translator's "does not define conversion" error.
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
	string	ip_saddr;	/* source address, as inet_ntop writes it */
	string	ip_daddr;	/* destination address */
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
	string	udps_laddr;	/* local address, as inet_ntop writes it */
	string	udps_raddr;	/* remote address */
} udpsinfo_t;

/* Address families, as Linux numbers them (for inet_ntop). */
inline int AF_INET = 2;
inline int AF_INET6 = 10;

/* Link-layer types, as Linux numbers them (for link_ntop). */
inline int ARPHRD_ETHER = 1;
inline int ARPHRD_INFINIBAND = 32;

typedef struct ipv4info {
	uint8_t	ipv4_ver;	/* 4 */
	uint8_t	ipv4_ihl;	/* header length in bytes */
	uint8_t	ipv4_tos;	/* type of service */
	uint16_t ipv4_length;	/* total length */
	uint16_t ipv4_ident;	/* identification */
	uint8_t	ipv4_flags;	/* IPH_DF, IPH_MF */
	uint16_t ipv4_offset;	/* fragment offset in bytes */
	uint8_t	ipv4_ttl;	/* time to live */
	uint8_t	ipv4_protocol;	/* next protocol */
	string	ipv4_protostr;	/* its name: "TCP", "UDP", "ICMP" ... */
	uint16_t ipv4_checksum;
	ipaddr_t ipv4_src;	/* source address, network order */
	ipaddr_t ipv4_dst;	/* destination address, network order */
	string	ipv4_saddr;	/* source address, dotted quad */
	string	ipv4_daddr;	/* destination address, dotted quad */
	uintptr_t ipv4_hdr;	/* the struct iphdr */
} ipv4info_t;

typedef struct ipv6info {
	uint8_t	ipv6_ver;	/* 6 */
	uint8_t	ipv6_tclass;	/* traffic class */
	uint32_t ipv6_flow;	/* flow label */
	uint16_t ipv6_plen;	/* payload length */
	uint8_t	ipv6_nexthdr;	/* next header protocol */
	string	ipv6_nextstr;	/* its name */
	uint8_t	ipv6_hlim;	/* hop limit */
	uintptr_t ipv6_src;	/* the source address (struct in6_addr) */
	uintptr_t ipv6_dst;	/* the destination address */
	string	ipv6_saddr;	/* source address, as inet_ntop writes it */
	string	ipv6_daddr;	/* destination address */
	uintptr_t ipv6_hdr;	/* the struct ipv6hdr */
} ipv6info_t;

inline uint8_t IPH_DF = 0x2;
inline uint8_t IPH_MF = 0x1;

inline uint8_t TH_FIN = 0x01;
inline uint8_t TH_SYN = 0x02;
inline uint8_t TH_RST = 0x04;
inline uint8_t TH_PUSH = 0x08;
inline uint8_t TH_ACK = 0x10;
inline uint8_t TH_URG = 0x20;
inline uint8_t TH_ECE = 0x40;
inline uint8_t TH_CWR = 0x80;

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
	ip_saddr = I->version == 4 ? inet_ntoa(&I->saddr) :
	    inet_ntop(AF_INET6, &((struct ipv6hdr *)I)->saddr);
	ip_daddr = I->version == 4 ? inet_ntoa(&I->daddr) :
	    inet_ntop(AF_INET6, &((struct ipv6hdr *)I)->daddr);
	ip_plength = I->version == 4 ?
	    ntohs(I->tot_len) - (I->ihl << 2) :
	    ntohs(((struct ipv6hdr *)I)->payload_len);
};

/* An IP protocol's name, as Solaris's ipv4_protostr gives it. */
inline string __ip_protostr[int P] = P == 6 ? "TCP" : P == 17 ? "UDP" :
    P == 1 ? "ICMP" : P == 58 ? "ICMPV6" : P == 2 ? "IGMP" :
    P == 132 ? "SCTP" : P == 0 ? "HOPOPTS" : P == 43 ? "ROUTING" :
    P == 44 ? "FRAGMENT" : P == 50 ? "ESP" : P == 51 ? "AH" :
    P == 59 ? "NONE" : P == 60 ? "DSTOPTS" : "<unknown>";

/*
 * args[4] and args[5] of the ip probes: the header as IPv4 or as IPv6;
 * the other version's is a translation of address 0, which cannot be
 * read (Solaris gives NULL).
 */
translator ipv4info_t < struct iphdr *I > {
	ipv4_ver = I->version;
	ipv4_ihl = I->ihl << 2;
	ipv4_tos = I->tos;
	ipv4_length = ntohs(I->tot_len);
	ipv4_ident = ntohs(I->id);
	ipv4_flags = (ntohs(I->frag_off) >> 13) & 0x3;
	ipv4_offset = (ntohs(I->frag_off) & 0x1fff) << 3;
	ipv4_ttl = I->ttl;
	ipv4_protocol = I->protocol;
	ipv4_protostr = __ip_protostr[I->protocol];
	ipv4_checksum = ntohs(I->check);
	ipv4_src = I->saddr;
	ipv4_dst = I->daddr;
	ipv4_saddr = inet_ntoa(&I->saddr);
	ipv4_daddr = inet_ntoa(&I->daddr);
	ipv4_hdr = (uintptr_t)I;
};

translator ipv6info_t < struct ipv6hdr *I > {
	ipv6_ver = I->version;
	ipv6_tclass = (I->priority << 4) | (I->flow_lbl[0] >> 4);
	ipv6_flow = ((I->flow_lbl[0] & 0xf) << 16) | (I->flow_lbl[1] << 8) |
	    I->flow_lbl[2];
	ipv6_plen = ntohs(I->payload_len);
	ipv6_nexthdr = I->nexthdr;
	ipv6_nextstr = __ip_protostr[I->nexthdr];
	ipv6_hlim = I->hop_limit;
	ipv6_src = (uintptr_t)&I->saddr;
	ipv6_dst = (uintptr_t)&I->daddr;
	ipv6_saddr = inet_ntop(AF_INET6, &I->saddr);
	ipv6_daddr = inet_ntop(AF_INET6, &I->daddr);
	ipv6_hdr = (uintptr_t)I;
};

inline ipv4info_t *__ipv4info_ip[struct iphdr *I] =
    xlate<ipv4info_t *>((struct iphdr *)(I->version == 4 ? (uintptr_t)I : 0));
inline ipv6info_t *__ipv6info_ip[struct iphdr *I] =
    xlate<ipv6info_t *>((struct ipv6hdr *)(I->version == 6 ? (uintptr_t)I : 0));

translator ifinfo_t < struct sk_buff *S > {
	if_name = S->dev->name;
	if_local = (S->dev->flags & 0x8) != 0;	/* IFF_LOOPBACK */
	if_ipstack = 0;
	if_addr = (uintptr_t)S->dev;
};

translator tcpinfo_t < struct tcphdr *T > {
	tcp_sport = ntohs(T->source);
	tcp_dport = ntohs(T->dest);
	tcp_seq = ntohl(T->seq);
	tcp_ack = ntohl(T->ack_seq);
	tcp_offset = T->doff << 2;
	tcp_flags = ((uint8_t *)T)[13];
	tcp_window = ntohs(T->window);
	tcp_checksum = ntohs(T->check);
	tcp_urgent = ntohs(T->urg_ptr);
	tcp_hdr = (uintptr_t)T;
};

translator udpinfo_t < struct udphdr *U > {
	udp_sport = ntohs(U->source);
	udp_dport = ntohs(U->dest);
	udp_length = ntohs(U->len);
	udp_checksum = ntohs(U->check);
	udp_hdr = (uintptr_t)U;
};

translator udpsinfo_t < struct sock *S > {
	udps_addr = (uintptr_t)S;
	udps_lport = S->__sk_common.skc_num;
	udps_rport = ntohs(S->__sk_common.skc_dport);
	udps_laddr = S->__sk_common.skc_family == AF_INET ?
	    inet_ntoa(&S->__sk_common.skc_rcv_saddr) :
	    inet_ntop(AF_INET6, &S->__sk_common.skc_v6_rcv_saddr);
	udps_raddr = S->__sk_common.skc_family == AF_INET ?
	    inet_ntoa(&S->__sk_common.skc_daddr) :
	    inet_ntop(AF_INET6, &S->__sk_common.skc_v6_daddr);
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
	tcp_sport = ntohs(((struct tcphdr *)R)->dest);
	tcp_dport = ntohs(((struct tcphdr *)R)->source);
	tcp_seq = 0;
	tcp_ack = ntohl(((struct tcphdr *)R)->seq) + 1;
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
