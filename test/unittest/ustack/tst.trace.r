
              frames`inner
              frames`outer

              frames`inner
done

