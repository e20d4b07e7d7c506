libstdc++.so.6 catch 3
libstdc++.so.6 throw 3

