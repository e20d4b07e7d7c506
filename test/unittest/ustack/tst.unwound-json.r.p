# The stack alone, without offsets.
sed -e 's/.*"value"://' -e 's/}]}$//' -e 's/+0x[0-9a-f]*"/"/g'
