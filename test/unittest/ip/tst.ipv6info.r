send ::1 -> ::1, ::1 -> ::1
send v6 payload 13 13 next UDP loopback 1 1
receive ::1 -> ::1, ::1 -> ::1
receive v6 payload 13 13 next UDP loopback 1 1

