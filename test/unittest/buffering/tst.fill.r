340 records
end

-- @@stderr --
dtrace: 1 drop on CPU 0
