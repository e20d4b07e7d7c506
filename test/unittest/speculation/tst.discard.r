principal

