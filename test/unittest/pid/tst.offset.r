dtt_add 0 0
dtt_add 0 1

