job-start 1 build -1
jobs job-start build 10
job-start 2 build -2
jobs job-start build 20
job-start 3 build -3
jobs job-start build 30
rustapp 27
rustjobs 27
ids 6

