signal-send 10
signal-clear 10

