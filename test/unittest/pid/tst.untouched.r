/etc/hostname bytes!
fault 1 at 7
/etc/hostname 1
max 7
min 7
avg 7
stddev 0
sum 7


           value  ------------- Distribution ------------- count    
               2 |                                         0        
               4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1        
               8 |                                         0        


