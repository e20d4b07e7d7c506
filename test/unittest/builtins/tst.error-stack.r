1 1 1 1 1

-- @@stderr --
dtrace: error on enabled probe ID 1 (ID 17: syscall:vmlinux:getpid:entry): invalid address (0x0) in action #3
