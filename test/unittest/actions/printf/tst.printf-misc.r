[1234] [0x1234] [                  10]
[a\tb\n\\] [x       |]
[1970 Jan  1 00:00:00] [1971 Jan  1 00:00:00]
[vmlinux`vfs_read] [vmlinux`vfs_read+0x2          ] [0x0]

