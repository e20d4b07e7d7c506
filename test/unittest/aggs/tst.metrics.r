# HELP dtrace_calls_total @calls = count() in syscall::getppid:entry
# TYPE dtrace_calls_total counter
dtrace_calls_total{syscall="getppid"} 3
# HELP dtrace_size @size = quantize() in syscall::getppid:entry
# TYPE dtrace_size histogram
dtrace_size_bucket{key1="read",le="0"} 0
dtrace_size_bucket{key1="read",le="1"} 0
dtrace_size_bucket{key1="read",le="3"} 0
dtrace_size_bucket{key1="read",le="7"} 0
dtrace_size_bucket{key1="read",le="15"} 0
dtrace_size_bucket{key1="read",le="31"} 0
dtrace_size_bucket{key1="read",le="63"} 0
dtrace_size_bucket{key1="read",le="127"} 3
dtrace_size_bucket{key1="read",le="+Inf"} 3
dtrace_size_sum{key1="read"} 300.0
dtrace_size_count{key1="read"} 3
# HELP dtrace_depth @depth = lquantize() in syscall::getppid:entry
# TYPE dtrace_depth histogram
dtrace_depth_bucket{le="4"} 3
dtrace_depth_bucket{le="+Inf"} 3
dtrace_depth_sum 9.0
dtrace_depth_count 3

  getppid                                                           3
  read                                              
           value  ------------- Distribution ------------- count    
              32 |                                         0        
              64 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 3        
             128 |                                         0        


           value  ------------- Distribution ------------- count    
             < 0 |                                         0        
               0 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 3        
               5 |                                         0        

