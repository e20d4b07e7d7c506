python3.11 gc-start generation 2

