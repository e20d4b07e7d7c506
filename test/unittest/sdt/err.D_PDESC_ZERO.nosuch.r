dtrace: failed to compile script err.D_PDESC_ZERO.nosuch.d: [D_PDESC_ZERO] line 2: probe description sdt:sched::no_such_tracepoint does not match any probes
