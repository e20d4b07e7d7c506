1

-- @@stderr --
dtrace: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): invalid address (0x10) in action #2
dtrace: error on enabled probe ID 2 (ID 1: dtrace:::BEGIN): invalid address (0x18) in action #1
