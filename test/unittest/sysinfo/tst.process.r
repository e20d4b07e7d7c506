fork 1
nthreads 1
sysexec 1

