5 str 10 0

