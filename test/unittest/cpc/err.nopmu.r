dtrace: script 'err.nopmu.d' matched 1 probe
dtrace: cpc:::PAPI_tot_ins-user-10000: this machine exposes no hardware performance counters (no core PMU under /sys/bus/event_source/devices); software events such as cpu_clock work
