xdtst 1 1
xdtst 1

