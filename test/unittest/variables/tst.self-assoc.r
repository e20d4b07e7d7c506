getpid 3

