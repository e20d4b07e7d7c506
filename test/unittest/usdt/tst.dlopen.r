libusdtplug.so:run 7 plugged

