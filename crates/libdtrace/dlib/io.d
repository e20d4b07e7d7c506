/*
 * fileinfo_t and fds[]: the files of the running process, as the Dynamic
 * Tracing Guide describes them, translated from the kernel's struct file.
 * fi_pathname, fi_dirname and fi_mount need the kernel's path walk
 * (d_path), which a tracing program cannot call here: they are not
 * defined, and a script that reads one gets DTrace's "translator does not
 * define conversion for member" error rather than a made-up path.
 */

typedef struct fileinfo {
	string	fi_name;	/* the file's name (its last path component) */
	int64_t	fi_offset;	/* offset within the file */
	string	fi_fs;		/* file system type */
	int	fi_oflags;	/* open(2) flags of the file descriptor */
} fileinfo_t;

translator fileinfo_t < struct file *F > {
	fi_name = F == NULL ? "<none>" : stringof(F->f_path.dentry->d_name.name);
	fi_offset = F == NULL ? 0 : F->f_pos;
	fi_fs = F == NULL ? "<none>" : stringof(F->f_path.mnt->mnt_sb->s_type->name);
	fi_oflags = F == NULL ? 0 : F->f_flags;
};

inline fileinfo_t fds[int fd] = xlate<fileinfo_t>(
    fd >= 0 && fd < curthread->files->fdt->max_fds ?
    curthread->files->fdt->fd[fd] : NULL);
