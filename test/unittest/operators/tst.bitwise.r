30 ff f0 ffffffff
1024 128 -4
f

