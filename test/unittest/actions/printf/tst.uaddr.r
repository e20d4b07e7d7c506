libc.so.6`getpid+OFF
0x8

