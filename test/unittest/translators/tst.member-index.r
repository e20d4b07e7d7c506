dt 1

