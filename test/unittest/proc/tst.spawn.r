create 1 1
exec-success true 1
exit true

