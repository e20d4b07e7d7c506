CPU     ID                    FUNCTION:NAME
  0      1                           :BEGIN 
  0      1                           :BEGIN 

-- @@stderr --
dtrace: script 'tst.default.d' matched 4 probes
