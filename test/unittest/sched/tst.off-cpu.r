xdtst 1

