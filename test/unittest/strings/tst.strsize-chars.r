abcde abcde abcde abcde abcde
dtrac 12345 -1234
5 2

