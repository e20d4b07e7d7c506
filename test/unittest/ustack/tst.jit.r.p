# Offsets vary with the compiler, the JIT code's address with the run.
sed -e 's/+0x[0-9a-f]*$//' -e 's/^\( *\)0x[0-9a-f]*$/\10xADDR/'
