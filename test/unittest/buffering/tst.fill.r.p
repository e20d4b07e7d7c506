# The numbers in order, then END's line.
awk '/^[0-9]+$/ { if ($1 != n) { print "out of order at " n; exit 1 } n++; next } { if (n) print n " records"; n = 0; print }'
