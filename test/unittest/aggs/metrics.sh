# The target of tst.metrics.d: three getppid calls, then one scrape of
# dtrace's metrics endpoint on port $1, its aggregations' lines printed.
python3 -c 'import os; [os.getppid() for _ in range(3)]'
python3 - "$1" <<'PY'
import sys, urllib.request
body = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1]).read().decode()
for line in body.splitlines():
    name = line.split(" ")[2] if line.startswith("#") else line
    if name.startswith(("dtrace_calls", "dtrace_size", "dtrace_depth")):
        print(line)
PY
