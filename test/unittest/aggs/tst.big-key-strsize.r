openat /etc/hostname /etc/hostname 1
1

