1 1 dtrace
1 dtrace 1
1

