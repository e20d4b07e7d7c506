x is 0

