/dev/null/impossible
-20 -20 errno 20

