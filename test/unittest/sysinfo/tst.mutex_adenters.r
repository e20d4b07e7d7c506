mutex_adenters contend 1

