
                2
               10
  one                                                               0
  spread                                                          100
       3000000000
