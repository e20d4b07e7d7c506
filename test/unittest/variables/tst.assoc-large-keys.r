11 2 0 7
0 2
3 3 0
a string value
2400

