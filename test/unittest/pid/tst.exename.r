a.out:dtt_add:entry 0
a.out:dtt_add:entry 1

