accept-established 47123 1 1 1 1
connect-established 47123 1 1 1 1

