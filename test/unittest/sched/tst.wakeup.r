sleep 1

