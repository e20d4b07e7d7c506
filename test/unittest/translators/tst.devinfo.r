1 1
1 1
0 <unknown>
0 <none>

