tick 0
tick 0
tick 0

