0      4
1      4
4      4
8      4
a      4
d      4
e      4
entry  4
return 4

