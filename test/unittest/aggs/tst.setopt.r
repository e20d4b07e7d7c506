still tracing

  c                                                                 3
  b                                                                 2
  a                                                                 1
-- @@stderr --
dtrace: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): couldn't set option "nosuchoption" to "1": Invalid option name
dtrace: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): couldn't set option "bufsize" to "1m": Operation illegal when tracing is active
