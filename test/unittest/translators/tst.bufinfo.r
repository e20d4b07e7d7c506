epid 2 fault 1
epid 3 fault 1
epid 4 fault 1
epid 5 fault 1
epid 6 fault 1
epid 7 fault 1
epid 8 fault 1
epid 9 fault 1
epid 10 fault 1
epid 11 fault 1
epid 12 fault 1
epid 13 fault 1
0 0
0 <unknown>
1 2 4 10 20 40 100 400

