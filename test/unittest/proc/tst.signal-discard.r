signal-send 10 1
signal-discard 10 1

