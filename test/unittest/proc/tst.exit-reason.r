kill exited 1 1
sleep killed 2 1

