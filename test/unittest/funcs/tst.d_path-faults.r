
-- @@stderr --
dtrace: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): invalid address (0x8) in action #1
dtrace: error on enabled probe ID 2 (ID 1: dtrace:::BEGIN): invalid address (0x1008) in action #1
