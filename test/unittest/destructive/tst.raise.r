SIGUSR1 caught

