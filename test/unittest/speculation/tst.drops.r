7

-- @@stderr --
dtrace: 1 speculative drop
