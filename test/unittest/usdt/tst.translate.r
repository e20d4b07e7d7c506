req 200 10 8
conn fd=5 twice=10
req 200 11 8
conn fd=6 twice=12

