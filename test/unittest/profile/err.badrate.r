dtrace: failed to compile script err.badrate.d: line 2: probe description :::profile-1ns does not match any probes
