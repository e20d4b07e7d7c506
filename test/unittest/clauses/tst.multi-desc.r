entry
glob getpid
return

