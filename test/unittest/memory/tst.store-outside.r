fault 1 in action 2
fault 1 in action 1
fault 1 in action 1
fault 5 in action 2

