
  cmp                                               
              unwind`cmp
              libc.so.6`msort_with_tmp.part.0
              libc.so.6`qsort_r
              unwind`main
              libc.so.6`__libc_start_call_main
              libc.so.6`__libc_start_main
              unwind`_start
                1
  work                                              
              unwind`work
              unwind`main
              libc.so.6`__libc_start_call_main
              libc.so.6`__libc_start_main
              unwind`_start
                1
