2 3 pair
5 2

