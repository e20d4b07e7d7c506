exit 1 1
lwp-create 1 3
lwp-exit 1 3

