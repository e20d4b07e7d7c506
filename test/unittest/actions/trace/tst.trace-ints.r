CPU     ID                    FUNCTION:NAME
  0      1                           :BEGIN         1       -1       -7 65534 200 9223372036854775807

