# The fixture's frames, without offsets; libc's frames depend on its build.
grep -v 'libc\.so' | sed 's/+0x[0-9a-f]*$//'
