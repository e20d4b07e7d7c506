[a] [b] [c] 1
[xyz] 1

