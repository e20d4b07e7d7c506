constant: 1 1 1 1
subroutine: 1 1 1 1
copied: 1 1
empty: 0 0 0 0
string: 0 xyz

