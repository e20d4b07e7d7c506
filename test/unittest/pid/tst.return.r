dtt_add returned 10 (arg0 past the start: 1)
dtt_add returned 11 (arg0 past the start: 1)
dtt_add returned 12 (arg0 past the start: 1)

