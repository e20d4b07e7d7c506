a.out:dtt_add:entry 0 10
a.out:dtt_add:entry 1 10
a.out:dtt_add:entry 2 10

