

              frames`inner
              frames`outer
              frames`main
                3

