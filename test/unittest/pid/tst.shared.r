dtt_add:entry 0
dtt_add:return 10
dtt_add:entry 1
dtt_add:return 11
dtt_scale:0 2
dtt_greet:entry world

