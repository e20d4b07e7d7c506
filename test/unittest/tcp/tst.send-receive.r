send ipv4 127.0.0.1 -> 127.0.0.1 SYN to the listener, header only 1, socket 1
the client's socket: 127.0.0.1 to 127.0.0.1:47124, state SYN_SENT
receive ipv4 127.0.0.1 -> 127.0.0.1 SYN to the listener, header only 1, socket 0
send ipv4 127.0.0.1 -> 127.0.0.1 SYN-ACK to the client, header only 1, socket 1
receive ipv4 127.0.0.1 -> 127.0.0.1 SYN-ACK to the client, header only 1, socket 0

