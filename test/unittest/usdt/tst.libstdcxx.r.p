# The library's file is named with its full version
# (libstdc++.so.6.0.30): only the soname part is checked.
sed 's/^libstdc++\.so\.6\.[0-9.]* /libstdc++.so.6 /'
