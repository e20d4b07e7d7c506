#!/bin/bash
# vm.sh: run a command on another Linux kernel, in a QEMU guest whose root
# is this machine's own root (read-only, under a tmpfs overlay), so that
# the binaries and tests built here run there unchanged.
#
#   test/kernels/vm.sh fetch SERIES      download Debian's kernel: 5.10 (bullseye), 6.1 (bookworm), 6.12 (trixie)
#   test/kernels/vm.sh run SERIES 'CMD'  boot it, run CMD as root in the guest (in this
#                                        directory), stream its output; exit with CMD's status
#
# Env: VM_CPUS (2), VM_MEM (4G), VM_TIMEOUT (1800 s), KERNELS_DIR (/var/cache/kernel-vm),
# VM_APPEND (more kernel parameters: loglevel=7 shows a soft lockup's stack),
# VM_TCG (single or multi: TCG's threads; single, see tcg_of).
# Needs (test/kernels/matrix installs them): qemu-system-x86 busybox-static cpio kmod xz-utils.
# The guest runs under TCG (no nested KVM on our machines): boot takes ~10 s and
# CPU-bound work runs 5-20x slower. The whole root, /tmp included, is the host's as it was
# at boot, writable in the guest only (a tmpfs of 3 GB on top).
set -euo pipefail
KERNELS_DIR=${KERNELS_DIR:-/var/cache/kernel-vm}

suite_of() {
    case $1 in
        5.10) echo bullseye ;;
        6.1) echo bookworm ;;
        6.12) echo trixie ;;
        *) echo "vm.sh: unknown kernel series $1 (5.10, 6.1, 6.12)" >&2; exit 2 ;;
    esac
}

# How TCG runs the guest's CPUs: on one host thread. A kernel patches its
# own text (a static key as a tracepoint is enabled, ftrace's call sites
# as fbt attaches) with int3 and a sync of every CPU, which
# multi-threaded TCG does not always honour: a guest CPU then runs the
# stale instruction, and spins at it for good (a soft lockup, 5.10: one
# smoke run in seven) or oopses on an int3 the kernel has already
# removed (6.12, enabling every function). One host thread for all the
# guest's CPUs sees every write at once: fourteen smoke runs on 5.10 and
# the whole fbt suite on 6.12 never showed either.
tcg_of() {
    echo single
}

# apt options for a private package index of the three releases, so the
# host's own sources are left alone.
apt_opts() {
    local d=$KERNELS_DIR/apt
    mkdir -p "$d/lists/partial" "$d/archives/partial"
    printf 'deb [trusted=yes] http://deb.debian.org/debian %s main\n' bullseye bookworm trixie > "$d/sources.list"
    echo "-o Dir::Etc::SourceList=$d/sources.list -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=$d/lists -o Dir::Cache::Archives=$d/archives"
}

fetch() {
    local series=$1 k=$KERNELS_DIR/$1 o pkg
    suite_of "$series" >/dev/null
    [ -d "$k/boot" ] && return 0
    o=$(apt_opts)
    # shellcheck disable=SC2086
    apt-get $o update -qq
    # The newest unsigned generic kernel of the series (not -rt, not -cloud).
    # shellcheck disable=SC2086
    pkg=$(apt-cache $o search --names-only "^linux-image-${series//./\\.}\\.[0-9][.0-9+a-z-]*-amd64-unsigned\$" |
        awk '{print $1}' | grep -v -e '-rt-' -e '-cloud-' | sort -V | tail -1)
    [ -n "$pkg" ] || { echo "vm.sh: no kernel package for $series" >&2; exit 1; }
    rm -rf "$k.tmp" && mkdir -p "$k.tmp"
    # shellcheck disable=SC2086
    (cd "$k.tmp" && apt-get $o download "$pkg" >/dev/null && dpkg-deb -x ./*.deb root && rm -f ./*.deb)
    # The kernel is in place only once its modules are indexed: a fetch that
    # stopped half-way (no depmod, say) is begun again by the next one.
    local r=$k.tmp/root
    [ -d "$r/lib/modules" ] || { mkdir -p "$r/lib"; ln -s ../usr/lib/modules "$r/lib/modules"; }
    depmod -b "$r" "$(ls "$r/lib/modules")"
    mv "$r" "$k" && rm -rf "$k.tmp"
}

run() {
    local series=$1 cmd=$2 k kver w m b mod try st
    fetch "$series"
    k=$KERNELS_DIR/$series
    kver=$(ls "$k/lib/modules")
    w=$(mktemp -d /tmp/kernel-vm.XXXX)
    trap 'rm -rf "$w"' EXIT
    # The initramfs: busybox and the modules that mount the host's root
    # (9p over virtio) under an overlay.
    mkdir -p "$w/ir/bin" "$w/ir/mod"
    cp /bin/busybox "$w/ir/bin/busybox"
    for mod in 9p 9pnet_virtio virtio_pci overlay; do
        for m in $(modprobe -d "$k" -S "$kver" --show-depends $mod | awk '$1=="insmod"{print $2}'); do
            b=$(basename "$m" .xz)
            [ -e "$w/ir/mod/$b" ] && continue
            case $m in
                *.xz) xz -dc "$m" > "$w/ir/mod/$b" ;;
                *) cp "$m" "$w/ir/mod/$b" ;;
            esac
            echo "$b" >> "$w/ir/mod/order"
        done
    done
    printf '%s\n' "cd $(printf %q "$(pwd)")" "$cmd" > "$w/ir/cmd"
    cat > "$w/ir/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mkdir -p /proc /sys /dev /host /ov /newroot
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
for m in $(cat /mod/order); do insmod /mod/$m 2>/dev/null; done
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose host /host
mount -t tmpfs -o size=3g tmp /ov; mkdir -p /ov/u /ov/w
mount -t overlay overlay -o lowerdir=/host,upperdir=/ov/u,workdir=/ov/w /newroot
cp /cmd /newroot/.vmcmd
cp /run /newroot/.vmrun
for d in proc sys dev; do mount --move /$d /newroot/$d; done
# Loopback up (tests talk to themselves over it) and pseudo-terminals.
ip link set lo up
mkdir -p /newroot/dev/pts; mount -t devpts devpts /newroot/dev/pts
# The overlay becomes the root (not a chroot: the kernel's own paths,
# d_path()'s, are then the ones the processes see).
exec switch_root /newroot /bin/bash /.vmrun
INIT
    cat > "$w/ir/run" <<'RUN'
export PATH=/usr/local/cargo/bin:/root/.cargo/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME=/root
echo "@@vm-kernel $(uname -r)"
bash /.vmcmd
echo "@@vm-status $?"
# The host's busybox (the initramfs's is gone with it).
/bin/busybox poweroff -f
RUN
    chmod +x "$w/ir/init"
    (cd "$w/ir" && find . | cpio -o -H newc 2>/dev/null | gzip -1 > "$w/initrd.gz")
    tcg=${VM_TCG:-$(tcg_of "$series")}
    # Multi-threaded TCG now and then oopses while a kernel patches its
    # own text at boot: boot again when the console shows a panic before
    # the command started.
    for try in 1 2 3; do
        timeout "${VM_TIMEOUT:-1800}" qemu-system-x86_64 -accel "tcg,thread=$tcg" -cpu max \
            -smp "${VM_CPUS:-2}" -m "${VM_MEM:-4G}" -nographic -no-reboot \
            -kernel "$k/boot/vmlinuz-$kver" -initrd "$w/initrd.gz" \
            -append "console=ttyS0 quiet loglevel=3 panic=-1 rdinit=/init ${VM_APPEND:-}" \
            -virtfs local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap \
            -nic none 2>&1 | stdbuf -o0 tr -d '\r' | tee "$w/raw" |
            sed -u -n -e 's/.*@@vm-kernel/@@vm-kernel/' -e '/^@@vm-kernel/,$p' || true
        grep -q '@@vm-kernel' "$w/raw" && break
        grep -q 'Kernel panic' "$w/raw" || break
        echo "vm.sh: the $series guest panicked at boot; booting again" >&2
    done
    grep -q '@@vm-kernel' "$w/raw" || { echo "vm.sh: the guest did not reach the command; its console:" >&2; tail -30 "$w/raw" >&2; }
    st=$(sed -n 's/^@@vm-status //p' "$w/raw" | tail -1)
    exit "${st:-124}"
}

case "${1:-}" in
    fetch) fetch "$2" ;;
    run) run "$2" "$3" ;;
    *) sed -n '2,15p' "$0"; exit 2 ;;
esac
