dtrace:::BEGIN 1 1
syscall:vmlinux:getpid:entry 2
syscall:vmlinux:getpid:return 3

