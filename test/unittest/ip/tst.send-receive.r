send ipv4 payload 13 on lo local 1
receive ipv4 payload 13 on lo local 1

