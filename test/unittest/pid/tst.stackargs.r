2 3 0 7
world

