epid 2 fault 1
epid 3 fault 1
epid 4 fault 1
epid 5 fault 1
epid 6 fault 1
epid 7 fault 1
0 0 <none> <none>
0 <unknown>

