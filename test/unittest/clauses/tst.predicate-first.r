n is 1

