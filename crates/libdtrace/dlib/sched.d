/*
 * cpuinfo_t and curcpu: the CPU the probe fired on. Linux has no
 * processor sets: cpu_pset is -1, as DTrace shows a CPU in none.
 */

typedef struct cpuinfo {
	processorid_t cpu_id;	/* the CPU number */
	psetid_t cpu_pset;	/* processor set: -1, none */
} cpuinfo_t;

translator cpuinfo_t < processorid_t C > {
	cpu_id = C;
	cpu_pset = -1;
};

inline cpuinfo_t *curcpu = xlate<cpuinfo_t *>(cpu);
