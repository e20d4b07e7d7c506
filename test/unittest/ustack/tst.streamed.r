

              frames`inner
                3


              frames`inner
                6


              frames`inner
                1


              frames`inner
                3


              frames`inner
                2


              frames`inner
                8


              frames`inner

           value  ------------- Distribution ------------- count    
               0 |                                         0        
               1 |@@@@@@@@@@@@@                            1        
               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@              2        
               4 |                                         0        



              frames`inner

           value  ------------- Distribution ------------- count    
               0 |                                         0        
               1 |@@@@@@@@@@@@@                            1        
               2 |@@@@@@@@@@@@@                            1        
               3 |@@@@@@@@@@@@@                            1        
            >= 4 |                                         0        


        2
              frames`inner
                2
        3
              frames`inner
                3


              frames`inner
                0

