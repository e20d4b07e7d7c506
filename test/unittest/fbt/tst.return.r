return 0 -20 -20

