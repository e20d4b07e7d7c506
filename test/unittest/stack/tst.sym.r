  vmlinux`vfs_read                                  |
  vmlinux`vfs_read                                  |
  vmlinux                                           |
vmlinux`vfs_read vmlinux`vfs_read+0x10 0x0
[          vmlinux`vfs_read+0x1]
vmlinux`vfs_write 1
vmlinux`vfs_read 2

  vmlinux                                                           1
