x
fault 1 in clause 2
fault 1 in clause 3
fault 1 in clause 4

