v4 ihl 20 length 33 protocol 17 UDP src 100007f dst 100007f hdr 1
127.0.0.1 -> 127.0.0.1, 127.0.0.1 -> 127.0.0.1

