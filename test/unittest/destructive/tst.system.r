before
system 42
after

