atoi 42
atoi returned 42

