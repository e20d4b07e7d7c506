
  x                                                                 0
  y                                                                 0
  z                                                                 1
