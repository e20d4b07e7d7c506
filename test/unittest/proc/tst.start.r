lwp-start 1 2

