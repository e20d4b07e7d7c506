/dev/null/args-char
/dev/null/args-char
19
1 8

