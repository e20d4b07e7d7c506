work e 1
work e 2

