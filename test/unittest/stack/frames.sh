# Shared by the stack tests' post-processors: each run of frame lines
# (INDENT spaces, then module`function+0xoffset) becomes one "<frames>"
# line, and "do_syscall_64 seen" ends the output if any frame was in it.
# Anything else is kept as it is.
awk -v indent="$1" '
BEGIN { pat = "^" sprintf("%" indent "s", "") "vmlinux`[A-Za-z0-9_.]+(\\+0x[0-9a-f]+)?$" }
$0 ~ pat {
	if (!inframes) print "<frames>"
	inframes = 1
	if ($0 ~ /`do_syscall_64\+/) seen = 1
	next
}
{ inframes = 0; print }
END { if (seen) print "do_syscall_64 seen" }
'
