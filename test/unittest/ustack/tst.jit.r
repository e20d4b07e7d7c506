
              jit`callee
              jitted_add_one
              jit`main
              libc.so.6`__libc_start_call_main
              libc.so.6`__libc_start_main
              jit`_start

              jit`callee
              0xADDR
              jit`main
              libc.so.6`__libc_start_call_main
              libc.so.6`__libc_start_main
              jit`_start
jitted_add_one

