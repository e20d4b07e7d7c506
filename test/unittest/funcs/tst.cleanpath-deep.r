[/a/d/f] [/y]
[a/] [/usr/lib64/libc.so]

