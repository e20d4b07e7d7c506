#!/bin/bash
# The probe-effect benchmark: builds dtrace and the bench driver, then
# runs every measurement in one go (needs root and, for the comparison,
# the Debian bpftrace package). Arguments go to the driver:
#   --calls N   getpid calls per run (default 2000000)
#   --rounds R  rounds per measurement, median shown (default 3)
#   --no-wide   skip the every-syscall enabling (bpftrace takes ~30 s)
#   --only PART run one part: probe-effect, startup, wide, stream, snapshot,
#               scale, usdt, ustack
#   --shape TEXT  the probe effect of the shapes whose label has TEXT
#   --no-bpftrace  leave bpftrace out
#   --baseline PATH  another dtrace binary run beside ours in the printf
#               stream, e.g. the last build before per-CPU buffers:
#                 git worktree add /tmp/base e39bf8d
#                 (cd /tmp/base && cargo build --release -j2 -p dtrace)
#                 bench/run.sh --baseline /tmp/base/target/release/dtrace
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -j2 -p dtrace -p dtrace-bench
exec target/release/dtrace-bench "$@"
