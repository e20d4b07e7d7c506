   22        write       1
    1         read       2
[x     |4d2     ]
[x     |00001234]

