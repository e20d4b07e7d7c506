
              frames`inner
              frames`outer

              frames`inner
              frames`outer

              frames`inner
              frames`outer

