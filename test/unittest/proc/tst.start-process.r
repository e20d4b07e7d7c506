start 1 1

