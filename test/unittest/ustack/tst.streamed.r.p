# The frame without its offset, which depends on the compiler.
sed 's/+0x[0-9a-f]*$//'
