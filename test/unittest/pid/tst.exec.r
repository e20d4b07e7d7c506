exec
atoi 1
dtt_step 1
exec

