/proc/version
/ /
1 1 1

