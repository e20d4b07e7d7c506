1 O 39
OTHER 120 0 -1
0 0 0
1 1
0 1400 0
1 0 swapper/0

