0

-- @@stderr --
dtrace: 1 failed speculation (available buffer(s) still busy)
