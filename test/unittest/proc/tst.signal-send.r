kill 10 sleep 1 1

