abcd|name-x|getppid|syscall:entry
nameentry 1

