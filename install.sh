#!/bin/sh
# Builds dtrace (one static binary, dist/static.sh) and installs it with
# its manual page:
#   ./install.sh [PREFIX]        (default /usr/local)
# puts PREFIX/bin/dtrace and PREFIX/share/man/man1/dtrace.1, which man(1)
# then finds (`man dtrace`; `man -l docs/dtrace.1` reads it in place).
set -eu
cd "$(dirname "$0")"
prefix=${1:-/usr/local}
bin=$(dist/static.sh)
install -Dm755 "$bin" "$prefix/bin/dtrace"
# The page is made from the binary's own tables, so it matches it.
mkdir -p "$prefix/share/man/man1"
"$bin" --man > "$prefix/share/man/man1/dtrace.1"
chmod 644 "$prefix/share/man/man1/dtrace.1"
echo "installed $prefix/bin/dtrace and $prefix/share/man/man1/dtrace.1"
