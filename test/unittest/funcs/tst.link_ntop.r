00:1b:21:ab:cd:ef
00:1b:21:ab:cd:ef:00:00:00:00:00:00:00:00:00:00:00:00:00:ff

-- @@stderr --
dtrace: error on enabled probe ID 2 (ID 1: dtrace:::BEGIN): illegal operation in action #1
