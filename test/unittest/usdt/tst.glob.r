query-start 3
tick 3

