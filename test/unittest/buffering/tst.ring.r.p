# The kept records: consecutive, ending at 999, fewer than all, then END.
awk '/^[0-9]+$/ { if (n && $1 != last + 1) { print "gap after " last; exit 1 } if (!n) first = $1; last = $1; n++; next }
     { if (n) { print (first > 0 ? "wrapped" : "did not wrap") ", last " last ", " (n < 1000 ? "fewer than all" : "all"); n = 0 } print }'
