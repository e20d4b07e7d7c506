nthreads 3

