ERROR epid 2 action 1 offset -1 fault 1 addr 0
next clause

-- @@stderr --
dtrace: error on enabled probe ID 2 (ID 1: dtrace:::BEGIN): invalid address (0x0) in action #1
