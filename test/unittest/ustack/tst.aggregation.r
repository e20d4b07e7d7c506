

              frames`inner
              frames`outer
              frames`main
              frames`_start
                3

