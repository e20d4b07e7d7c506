send length 13 ipv4 payload 13 socket 1
from a socket connected to port 47126, its own port 1
from 127.0.0.1 to 127.0.0.1
receive length 13 ipv4 payload 13 socket 0

