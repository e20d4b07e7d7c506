
  a                                                         9                1
  b                                                         2                1
  a                                                         1                2
  c                                                         3                3
