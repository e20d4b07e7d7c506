/*
 * The process model of the Dynamic Tracing Guide on Linux: psinfo_t and
 * lwpsinfo_t, translated from the kernel's struct task_struct, and the
 * inlines curpsinfo and curlwpsinfo for the running thread. The proc
 * and sched providers' arguments are these types: a program enabling
 * their probes loads this file.
 *
 * Each member has its Linux meaning where Linux has one. The Solaris
 * notions Linux lacks (tasks, projects, resource pools, zones,
 * contracts, processor sets, synchronization object types) have the
 * values DTrace for Linux gives them: 0, or -1 for "none". Members that
 * would need a read of user memory other than a string (pr_argc, the
 * environment vector pr_envp) are not defined: a script that reads one
 * gets DTrace's "translator does not define conversion for member"
 * error rather than a made-up value.
 */

typedef id_t poolid_t;
typedef id_t ctid_t;

typedef struct timestruc {
	time_t	tv_sec;		/* seconds */
	long	tv_nsec;	/* and nanoseconds */
} timestruc_t;

/* A count of nanoseconds as seconds and nanoseconds. */
translator timestruc_t < uint64_t NS > {
	tv_sec = NS / 1000000000;
	tv_nsec = NS % 1000000000;
};

typedef struct psinfo {
	int	pr_nlwp;	/* threads in the process */
	pid_t	pr_pid;		/* process id (the thread group id) */
	pid_t	pr_ppid;	/* parent's process id */
	pid_t	pr_pgid;	/* process group id */
	pid_t	pr_sid;		/* session id */
	uid_t	pr_uid;		/* real user id */
	uid_t	pr_euid;	/* effective user id */
	gid_t	pr_gid;		/* real group id */
	gid_t	pr_egid;	/* effective group id */
	uintptr_t pr_addr;	/* the task_struct */
	size_t	pr_size;	/* address space size, kilobytes */
	dev_t	pr_ttydev;	/* controlling terminal, PRNODEV if none */
	timestruc_t pr_start;	/* process start time, since the epoch */
	char	pr_fname[16];	/* the command name */
	char	pr_psargs[80];	/* the start of the argument list: argv[0] */
	int	pr_wstat;	/* exit status, once exiting */
	int	pr_argc;	/* not defined: needs a read of user memory */
	uintptr_t pr_argv;	/* address of the initial argument vector */
	uintptr_t pr_envp;	/* not defined: needs pr_argc */
	char	pr_dmodel;	/* data model: PR_MODEL_ILP32 or _LP64 */
	taskid_t pr_taskid;	/* task id: 0 */
	projid_t pr_projid;	/* project id: 0 */
	poolid_t pr_poolid;	/* resource pool id: 0 */
	zoneid_t pr_zoneid;	/* zone id: 0 */
	ctid_t	pr_contract;	/* process contract id: 0 */
} psinfo_t;

typedef struct lwpsinfo {
	int	pr_flag;	/* PR_* flags */
	id_t	pr_lwpid;	/* thread id */
	uintptr_t pr_addr;	/* the task_struct */
	uintptr_t pr_wchan;	/* wait address: 0, see below */
	char	pr_stype;	/* synchronization object type: SOBJ_NONE */
	char	pr_state;	/* SSLEEP, SRUN, SZOMB, SSTOP, SIDL, SONPROC */
	char	pr_sname;	/* the state as a letter: S R Z T I O */
	int	pr_nice;	/* not translated, as in DTrace */
	short	pr_syscall;	/* system call number, 0 if in none */
	int	pr_pri;		/* kernel priority, lower is more urgent */
	char	pr_clname[8];	/* scheduling policy: OTHER, FIFO, RR ... */
	processorid_t pr_onpro;	/* the CPU it last ran on */
	processorid_t pr_bindpro; /* the CPU it is bound to, else PBIND_NONE */
	psetid_t pr_bindpset;	/* processor set: PS_NONE */
	char	pr_name[16];	/* the thread's name */
} lwpsinfo_t;

inline char PR_MODEL_ILP32 = 1;
inline char PR_MODEL_LP64 = 2;
inline dev_t PRNODEV = (dev_t)-1;
inline processorid_t PBIND_NONE = -1;
inline psetid_t PS_NONE = -1;

/* pr_flag */
inline int PR_STOPPED = 0x00000001;
inline int PR_ISTOP = 0x00000002;
inline int PR_DSTOP = 0x00000004;
inline int PR_STEP = 0x00000008;
inline int PR_ASLEEP = 0x00000010;
inline int PR_PCINVAL = 0x00000020;
inline int PR_ASLWP = 0x00000040;
inline int PR_AGENT = 0x00000080;
inline int PR_DETACH = 0x00000100;
inline int PR_DAEMON = 0x00000200;
inline int PR_IDLE = 0x00000400;
inline int PR_ISSYS = 0x00001000;
inline int PR_VFORKP = 0x00002000;
inline int PR_ORPHAN = 0x00004000;
inline int PR_PTRACE = 0x04000000;

/* pr_state */
inline char SSLEEP = 1;
inline char SRUN = 2;
inline char SZOMB = 3;
inline char SSTOP = 4;
inline char SIDL = 5;
inline char SONPROC = 6;
inline char SWAIT = 7;

/* pr_stype */
inline char SOBJ_NONE = 0;

/*
 * pr_ttydev: the controlling terminal's device number (major << 20 |
 * minor, Linux's dev_t). pr_start: the group leader's start time
 * (monotonic) moved to the epoch by the difference between walltimestamp
 * and timestamp now, so within a few microseconds of the exact time.
 * pr_psargs: Linux keeps the arguments in the process's memory, where
 * only the running process's can be read, and copyinstr stops at the
 * first NUL: for the running process it is argv[0] (as the process may
 * have changed it), for another process the command name. pr_argv: the
 * argument vector's address on the initial stack (after argc). pr_dmodel:
 * PR_MODEL_ILP32 for a process with a 32-bit address space (ia32 and x32
 * programs), else PR_MODEL_LP64 (kernel threads too).
 */
translator psinfo_t < struct task_struct *T > {
	pr_nlwp = T->signal->nr_threads;
	pr_pid = T->tgid;
	pr_ppid = T->real_parent->tgid;
	pr_pgid = T->signal->pids[2]->numbers[0].nr;
	pr_sid = T->signal->pids[3]->numbers[0].nr;
	pr_uid = T->cred->uid.val;
	pr_euid = T->cred->euid.val;
	pr_gid = T->cred->gid.val;
	pr_egid = T->cred->egid.val;
	pr_addr = (uintptr_t)T;
	pr_size = T->mm == NULL ? 0 : T->mm->total_vm * 4;
	pr_ttydev = T->signal->tty == NULL ? PRNODEV :
	    (dev_t)T->signal->tty->driver->major << 20 |
	    (T->signal->tty->driver->minor_start + T->signal->tty->index);
	pr_start = xlate<timestruc_t>((uint64_t)(walltimestamp - timestamp +
	    T->group_leader->start_time));
	pr_fname = T->comm;
	pr_psargs = T == curthread && T->mm != NULL ?
	    copyinstr(T->mm->arg_start, 80) : stringof(T->comm);
	pr_wstat = T->exit_code;
	pr_argv = T->mm == NULL ? 0 : T->mm->start_stack + 8;
	pr_dmodel = T->mm != NULL && T->mm->task_size <= 0x100000000 ?
	    PR_MODEL_ILP32 : PR_MODEL_LP64;
	pr_taskid = 0;
	pr_projid = 0;
	pr_poolid = 0;
	pr_zoneid = 0;
	pr_contract = 0;
};

/*
 * pr_flag: PR_STOPPED for a stopped or traced thread, PR_PTRACE for one
 * under ptrace, PR_ISSYS for a kernel thread, PR_IDLE for a CPU's idle
 * thread. pr_state and pr_sname from the task's state: running on a CPU
 * is SONPROC 'O', runnable SRUN 'R', sleeping SSLEEP 'S', stopped or
 * traced SSTOP 'T', exited SZOMB 'Z', not yet started SIDL 'I'.
 * pr_wchan: finding where a thread sleeps needs a walk of its stack; 0,
 * as in DTrace for Linux. pr_syscall: the system call the thread is in
 * (orig_ax of its saved user registers, at the top of its 16 KiB kernel
 * stack), 0 if it is in none. pr_pri: Linux's priority (0..139, lower is
 * more urgent, the reverse of Solaris's). pr_clname: the scheduling
 * policy as chrt(1) names it without "SCHED_". pr_bindpro: the one CPU a
 * thread's affinity allows, else PBIND_NONE.
 */
translator lwpsinfo_t < struct task_struct *T > {
	pr_flag = (T->__state & 0xc ? PR_STOPPED : 0) |
	    (T->ptrace != 0 ? PR_PTRACE : 0) |
	    (T->flags & 0x00200000 ? PR_ISSYS : 0) |
	    (T->flags & 0x2 ? PR_IDLE : 0);
	pr_lwpid = T->pid;
	pr_addr = (uintptr_t)T;
	pr_wchan = 0;
	pr_stype = SOBJ_NONE;
	pr_state = T->exit_state != 0 || T->__state & 0x80 ? SZOMB :
	    T->__state & 0xc ? SSTOP :
	    T->__state & 0x800 ? SIDL :
	    T->__state != 0 ? SSLEEP :
	    T->on_cpu ? SONPROC : SRUN;
	pr_sname = T->exit_state != 0 || T->__state & 0x80 ? 'Z' :
	    T->__state & 0xc ? 'T' :
	    T->__state & 0x800 ? 'I' :
	    T->__state != 0 ? 'S' :
	    T->on_cpu ? 'O' : 'R';
	pr_syscall = T->flags & 0x00200000 ? 0 :
	    ((struct pt_regs *)((uintptr_t)T->stack + 16384 -
	    sizeof(struct pt_regs)))->orig_ax == -1 ? 0 :
	    ((struct pt_regs *)((uintptr_t)T->stack + 16384 -
	    sizeof(struct pt_regs)))->orig_ax;
	pr_pri = T->prio;
	pr_clname = T->policy == 0 ? "OTHER" : T->policy == 1 ? "FIFO" :
	    T->policy == 2 ? "RR" : T->policy == 3 ? "BATCH" :
	    T->policy == 5 ? "IDLE" : T->policy == 6 ? "DEADLINE" :
	    T->policy == 7 ? "EXT" : "?";
	pr_onpro = T->cpu;
	pr_bindpro = T->nr_cpus_allowed == 1 ? T->cpu : PBIND_NONE;
	pr_bindpset = PS_NONE;
	pr_name = T->comm;
};

inline psinfo_t *curpsinfo = xlate<psinfo_t *>(curthread);
#pragma D attributes Stable/Stable/Common curpsinfo
inline lwpsinfo_t *curlwpsinfo = xlate<lwpsinfo_t *>(curthread);
#pragma D attributes Stable/Stable/Common curlwpsinfo

/*
 * How a child ended, as waitid(2) reports it in si_code: proc:::exit's
 * args[0]. The kernel keeps a task's wait status in exit_code: the
 * signal that killed it in the low seven bits, 0x80 if it dumped core,
 * the exit status above them.
 */
inline int CLD_EXITED = 1;
inline int CLD_KILLED = 2;
inline int CLD_DUMPED = 3;
inline int CLD_TRAPPED = 4;
inline int CLD_STOPPED = 5;
inline int CLD_CONTINUED = 6;

inline int __proc_exit_reason[struct task_struct *T] =
    (T->exit_code & 0x7f) == 0 ? CLD_EXITED :
    (T->exit_code & 0x80) ? CLD_DUMPED : CLD_KILLED;

/*
 * proc:::exec and exec-failure, on the system call hooks: execve (59)
 * and execveat (322) on x86-64; the path is execve's first argument and
 * execveat's second; a failed call returns the negated error number.
 */
inline int __proc_is_exec[long N] = N == 59 || N == 322;
inline int __proc_regs_exec[struct pt_regs *R] = __proc_is_exec[R->orig_ax];
inline string __proc_exec_path[struct pt_regs *R] =
    copyinstr(R->orig_ax == 59 ? R->di : R->si);
inline int __proc_errno[long R] = -R;

/*
 * proc:::start, lwp-start and signal-clear, on the system call return
 * hook: a new task's first return is from clone (56), fork (57), vfork
 * (58) or clone3 (435), with 0; a process's first thread has its
 * process's id. rt_sigtimedwait (128) returns the signal it took.
 */
inline int __proc_regs_fork[struct pt_regs *R] = R->orig_ax == 56 ||
    R->orig_ax == 57 || R->orig_ax == 58 || R->orig_ax == 435;
inline int __proc_new_process[struct pt_regs *R] =
    curthread->pid == curthread->tgid;
inline int __proc_new_thread[struct pt_regs *R] =
    curthread->pid != curthread->tgid;
inline int __proc_regs_sigwait[struct pt_regs *R] = R->orig_ax == 128;

/*
 * proc:::fault's faults, as Solaris numbers them, from the signal and
 * si_code the kernel's trap handler sends (a siginfo pointer of 0 or 1
 * is the kernel's "no information" or "privileged" mark: no fault).
 */
inline int FLTILL = 1;
inline int FLTPRIV = 2;
inline int FLTBPT = 3;
inline int FLTTRACE = 4;
inline int FLTACCESS = 5;
inline int FLTBOUNDS = 6;
inline int FLTIOVF = 7;
inline int FLTIZDIV = 8;
inline int FLTFPE = 9;
inline int FLTSTACK = 10;
inline int FLTPAGE = 11;
inline int FLTWATCH = 12;
inline int FLTCPCOVF = 13;

inline int __proc_fault[struct kernel_siginfo *I] =
    (uintptr_t)I <= 1 || I->si_code <= 0 || I->si_code == 0x80 ? 0 :
    I->si_signo == 4 ? (I->si_code == 5 || I->si_code == 6 ? FLTPRIV : FLTILL) :
    I->si_signo == 5 ? (I->si_code == 1 ? FLTBPT : FLTTRACE) :
    I->si_signo == 7 ? FLTACCESS :
    I->si_signo == 8 ? (I->si_code == 1 ? FLTIZDIV :
	I->si_code == 2 ? FLTIOVF : FLTFPE) :
    I->si_signo == 11 ? (I->si_code == 1 ? FLTBOUNDS : FLTACCESS) : 0;

/* sched:::surrender: a CPU other than the one the probe fires on. */
inline int __sched_remote[int C] = C != cpu;
