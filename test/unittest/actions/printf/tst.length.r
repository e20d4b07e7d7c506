-1 2 ff 1000 5 -6
-7 8 beef A 9

