kept 1

