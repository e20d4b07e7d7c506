7
fault 5

