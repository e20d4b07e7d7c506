rw-block contend slept 1 as writer

