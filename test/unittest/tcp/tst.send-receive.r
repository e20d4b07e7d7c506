send ipv4 SYN to the listener, header only 1, socket 1
the client's socket: remote port 47124, state SYN_SENT
receive ipv4 SYN to the listener, header only 1, socket 0
send ipv4 SYN-ACK to the client, header only 1, socket 1
receive ipv4 SYN-ACK to the client, header only 1, socket 0

