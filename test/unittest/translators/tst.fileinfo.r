version / proc
1 1 1
<none> <none>

