/*
 * The process model of the Dynamic Tracing Guide on Linux: psinfo_t and
 * lwpsinfo_t, translated from the kernel's struct task_struct, and the
 * inlines curpsinfo and curlwpsinfo for the running thread. Fields that
 * have no Linux counterpart (zones, projects, tasks, pools, contracts)
 * are not defined: a script that reads one gets DTrace's "translator does
 * not define conversion for member" error rather than a made-up value.
 */

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
	char	pr_fname[16];	/* the command name */
	int	pr_wstat;	/* exit status, once exiting */
} psinfo_t;

typedef struct lwpsinfo {
	int	pr_flag;	/* the task's PF_* flags */
	id_t	pr_lwpid;	/* thread id */
	uintptr_t pr_addr;	/* the task_struct */
	int	pr_nice;	/* nice value, -20..19 */
	int	pr_pri;		/* kernel priority, lower is more urgent */
	processorid_t pr_onpro;	/* the CPU it last ran on */
	char	pr_name[16];	/* the thread's name */
} lwpsinfo_t;

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
	pr_fname = T->comm;
	pr_wstat = T->exit_code;
};

translator lwpsinfo_t < struct task_struct *T > {
	pr_flag = T->flags;
	pr_lwpid = T->pid;
	pr_addr = (uintptr_t)T;
	pr_nice = T->static_prio - 120;
	pr_pri = T->prio;
	pr_onpro = T->thread_info.cpu;
	pr_name = T->comm;
};

inline psinfo_t *curpsinfo = xlate<psinfo_t *>(curthread);
inline lwpsinfo_t *curlwpsinfo = xlate<lwpsinfo_t *>(curthread);
