speculation 1
principal
speculative 1
speculative 2
after

