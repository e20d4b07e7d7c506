dtraceab
adtrace

-- @@stderr --
dtrace: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): out of scratch space in action #1
