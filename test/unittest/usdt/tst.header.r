usdtapp:run_query:query-start hello 8
query-done hello rows=40 elapsed=-5
usdtapp:run_query:query-start hello 9
query-done hello rows=45 elapsed=-5
usdtapp:run_query:query-start hello 10
query-done hello rows=50 elapsed=-5
ticks 3

