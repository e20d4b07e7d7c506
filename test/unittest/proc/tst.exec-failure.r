exec /nonexistent/program (system call 1)
exec-failure 2

