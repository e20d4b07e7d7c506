1 1 1 1 1
dtrace dtrace dtrace
1 1
1 1
0 0 1
1

