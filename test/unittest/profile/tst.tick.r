 tick-5000us

