HELLO, world

