adaptive-block contend slept 1
a mutex

