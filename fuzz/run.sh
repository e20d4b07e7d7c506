#!/usr/bin/env bash
# Builds and runs the compile-path fuzzer (see docs/ARCHITECTURE.md).
#
#   fuzz/run.sh SECONDS   run for that long (CI uses about 60)
#   fuzz/run.sh           run until stopped (Ctrl-C), for hours by hand
#
# The seed corpus is every test/unittest/**/*.d plus fuzz/regressions;
# what the fuzzer learns goes to fuzz/corpus (kept between runs, not in
# git). A crash, panic, hang (-timeout, 1 s per input) or out-of-memory
# (-rss_limit_mb, -malloc_limit_mb) stops it with a non-zero status and
# leaves the input in fuzz/artifacts/; copy it into fuzz/regressions/ so
# the workspace tests keep covering it. DTRACE_FUZZ_VERIFY=1 (as root)
# also loads every program into the kernel's verifier. Extra arguments
# after SECONDS go to libFuzzer. CARGO_LOCK names a flock(1) file taken
# around the build (default /tmp/cargo.lock; empty: none).
#
# FUZZ_TARGET=btf picks the other target, the kernel-table parsers (BTF,
# split BTF, kallsyms): seeds from fuzz/seeds-btf, corpus in
# fuzz/corpus-btf, no dictionary.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
secs=${1:-0}
shift || true
target=${FUZZ_TARGET:-compile}
case "$target" in
compile) corpus="$here/corpus" ;;
btf) corpus="$here/corpus-btf" ;;
*) echo "fuzz/run.sh: unknown FUZZ_TARGET '$target' (compile, btf)" >&2; exit 2 ;;
esac

# Coverage instrumentation with stable rustc's own flags: no cargo-fuzz,
# no nightly. libfuzzer-sys builds libFuzzer with the C++ compiler.
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 -Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table -Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing"
export CARGO_TARGET_DIR="$here/target"
# An explicit --target keeps the flags off build scripts and proc macros.
host=$(rustc -vV | sed -n 's/^host: //p')
build=(cargo build --release --manifest-path "$here/Cargo.toml" --bin "$target" -j2 --target "$host")
lock=${CARGO_LOCK-/tmp/cargo.lock}
if [ -n "$lock" ] && command -v flock >/dev/null; then
    flock "$lock" "${build[@]}"
else
    "${build[@]}"
fi

seeds="$here/target/seeds"
rm -rf "$seeds"
mkdir -p "$seeds" "$corpus" "$here/artifacts"
extra=()
if [ "$target" = compile ]; then
    find "$root/test/unittest" -name '*.d' | while read -r f; do
        cp "$f" "$seeds/$(echo "${f#"$root"/}" | tr / _)"
    done
    cp "$here"/regressions/* "$seeds/" 2>/dev/null || true
    extra=(-dict="$here/d.dict")
else
    cp "$here/seeds-$target"/* "$seeds/"
fi

log="$here/target/fuzz.log"
status=0
"$here/target/$host/release/$target" "$corpus" "$seeds" \
    "${extra[@]}" \
    -timeout=1 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
    -max_len=8192 -max_total_time="$secs" \
    -artifact_prefix="$here/artifacts/" \
    -print_final_stats=1 "$@" 2>&1 | tee "$log" | grep -v '^#[0-9]' || true
status=${PIPESTATUS[0]}
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
echo "fuzz: ${execs:-0} executions, exit status $status"
exit "$status"
