openat -100 /dev/null/args-descs

