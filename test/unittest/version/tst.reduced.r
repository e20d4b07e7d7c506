1 2 three 4

