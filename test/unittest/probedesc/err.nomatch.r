dtrace: failed to compile script err.nomatch.d: line 2: probe description syscall::nosuchsyscall:entry does not match any probes
