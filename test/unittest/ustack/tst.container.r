
              libc.so.6`getppid
              libnshost.so`priv_side_work
              libnshost.so`ns_entry
              nsapp`main
              libc.so.6`__libc_start_call_main
              libc.so.6`__libc_start_main
              nsapp`_start

