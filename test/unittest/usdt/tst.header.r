usdtapp:run_query:query-start hello 8 hello
query-done hello rows=40 elapsed=-5
query-plain hello
usdtapp:run_query:query-start hello 9 hello
query-done hello rows=45 elapsed=-5
query-plain hello
usdtapp:run_query:query-start hello 10 hello
query-done hello rows=50 elapsed=-5
query-plain hello
ticks 3

