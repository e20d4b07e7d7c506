# The values are the running task's; the layout and member names are
# the kernel's.
sed -e 's/= 0x[0-9a-f]*$/= N/' -e 's/= 0$/= N/'
