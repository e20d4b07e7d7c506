second first 1
first second 2
first second third 11
third second first 20
third second first 20

