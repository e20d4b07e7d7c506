a
c
d

