5 1 16830464
linux, 64-bit

