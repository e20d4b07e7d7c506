shape 2

