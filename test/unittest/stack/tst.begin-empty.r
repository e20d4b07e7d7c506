
depth 0
depth 0

