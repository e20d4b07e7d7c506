connect-request to 47127, SYN 1, from the socket 1
accept-refused: reset from 47127 to the client 1, RST|ACK 1, seq 0, ack 1, ipv4
connect-refused by 47127

