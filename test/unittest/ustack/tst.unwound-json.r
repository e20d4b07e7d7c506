{"frames":["unwind`leaf","unwind`nocfi","unwind`main","libc.so.6`__libc_start_call_main","libc.so.6`__libc_start_main","unwind`_start"],"unwound":["pc","cfi","fp","cfi","cfi","cfi"]}
