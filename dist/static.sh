#!/bin/sh
# Builds dtrace as one static binary that runs on any x86-64 Linux
# userland, old glibc included: glibc linked in (Rust's crt-static on the
# gnu target, a static-pie executable). Prints its path:
#   target/x86_64-unknown-linux-gnu/release/dtrace
# test/kernels/matrix runs it in a Debian 11 (glibc 2.31) userland.
set -eu
cd "$(dirname "$0")/.."
# --target keeps the flag off build scripts and the host's own builds.
RUSTFLAGS="-C target-feature=+crt-static" \
    cargo build --release -j2 -p dtrace --bin dtrace --target x86_64-unknown-linux-gnu >&2
echo target/x86_64-unknown-linux-gnu/release/dtrace
