# Frames without their offsets, which depend on the compiler.
sed 's/+0x[0-9a-f]*$//'
