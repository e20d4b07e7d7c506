told 1

