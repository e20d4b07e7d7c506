[abcdefghijXYZ]
8 2 5
-1 5 2

