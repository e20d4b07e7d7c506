awk '{ $1 = ""; print }'
