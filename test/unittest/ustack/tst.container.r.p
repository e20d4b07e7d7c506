# Offsets depend on the compiler and on glibc's build.
sed 's/+0x[0-9a-f]*$//'
