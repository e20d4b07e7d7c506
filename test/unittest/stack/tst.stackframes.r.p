# Counts the frame lines before each value.
awk '/^    vmlinux`[A-Za-z0-9_.]+(\+0x[0-9a-f]+)?$/ { n++; next } /^[0-9]+$/ { print n " frames, " $0; n = 0; next } { print }'
