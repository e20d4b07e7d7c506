hello, world
104111 hello, world

