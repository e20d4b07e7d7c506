/*
 * The io provider's types, as the Dynamic Tracing Guide describes them,
 * translated from Linux's block layer and VFS:
 *
 * bufinfo_t, from struct bio *: one block I/O, or struct request *.
 * devinfo_t, from struct bio * (its device), struct request * or struct
 * block_device *.
 * fileinfo_t, from struct file *, and fds[], the files of the running
 * process.
 *
 * The block layer's types changed in Linux 5.11 and 5.12 (a bio names its
 * block_device, bi_bdev, where it named a gendisk and a partition
 * number): the translators from its types are in io_bdev.d and, for the
 * kernels before, io_gendisk.d, each compiled only where the kernel's
 * types are those it was written for (#pragma D depends_on member).
 *
 * Where Linux keeps no such value, or a tracing program cannot reach it,
 * the member says so below: a fixed value where DTrace for Linux gives
 * one, else no conversion (a script that reads it gets DTrace's
 * "translator does not define conversion for member" error rather than a
 * made-up value).
 */

typedef char *caddr_t;

typedef struct bufinfo {
	int	b_flags;	/* B_* flags */
	size_t	b_bcount;	/* bytes of the transfer */
	caddr_t	b_addr;		/* buffer address: 0, see below */
	uint64_t b_lblkno;	/* first 512-byte sector on the device */
	uint64_t b_blkno;	/* the same: Linux has no other block number */
	size_t	b_resid;	/* bytes not transferred: 0, see below */
	size_t	b_bufsize;	/* size of the buffer: the transfer's */
	caddr_t	b_iodone;	/* completion function (bi_end_io) */
	int	b_error;	/* errno of a failed transfer, else 0 */
	dev_t	b_edev;		/* device: Linux's dev_t (major << 20 | minor) */
} bufinfo_t;

/*
 * b_flags. Linux sets B_READ or B_WRITE (the direction of the bio's
 * operation: odd operations write), B_ASYNC unless the bio is REQ_SYNC,
 * B_PHYS when the data are user pages pinned for direct I/O
 * (BIO_PAGE_PINNED) and B_PAGEIO otherwise, B_ERROR once the bio has an
 * error status. B_BUSY and B_DONE have no bio counterpart.
 */
/*
 * A blk_status_t as the errno the kernel reports for it
 * (blk_status_to_errno): EIO for the codes without a fixed meaning across
 * kernel versions. The translators of io_bdev.d and io_gendisk.d use it.
 */
inline int __blk_errno[int S] = S == 0 ? 0 :
    S == 1 ? 95 :	/* EOPNOTSUPP */
    S == 2 ? 110 :	/* ETIMEDOUT */
    S == 3 ? 28 :	/* ENOSPC */
    S == 4 ? 67 :	/* ENOLINK */
    S == 5 ? 121 :	/* EREMOTEIO */
    S == 6 ? 52 :	/* EBADE */
    S == 7 ? 61 :	/* ENODATA */
    S == 8 ? 84 :	/* EILSEQ */
    S == 9 ? 12 :	/* ENOMEM */
    S == 12 ? 11 :	/* EAGAIN */
    S == 13 ? 16 :	/* EBUSY */
    S == 16 ? 19 :	/* ENODEV */
    5;			/* EIO */

inline int B_BUSY = 0x000001;
inline int B_DONE = 0x000002;
inline int B_ERROR = 0x000004;
inline int B_PAGEIO = 0x000010;
inline int B_PHYS = 0x000020;
inline int B_READ = 0x000040;
inline int B_WRITE = 0x000100;
inline int B_ASYNC = 0x000400;

typedef struct devinfo {
	int	dev_major;	/* major number */
	int	dev_minor;	/* minor number */
	int	dev_instance;	/* instance: 0, see below */
	string	dev_name;	/* the disk's driver */
	string	dev_statname;	/* the disk or partition, as iostat names it */
	string	dev_pathname;	/* its /dev path: "<unknown>", see below */
} devinfo_t;

/*
 * Linux numbers devices, not driver instances: dev_instance is 0, as in
 * DTrace for Linux. dev_name is the driver of the disk's parent device
 * ("virtio_blk", "nvme", "sd"), "<none>" for a disk without one (loop,
 * zram). dev_statname is the block device's name ("vda", "vda1",
 * "loop0"). dev_pathname would be "/dev/" and that name, but D cannot
 * join strings here yet: it is "<unknown>", as DTrace for Linux gives it.
 */
/*
 * fileinfo_t. fi_pathname is the file's full path (d_path). fi_dirname
 * and fi_mount are approximations from the dentries: the name of the
 * file's parent directory (not its whole path: "etc" for /etc/passwd, "/"
 * for a file in the root of its file system) and the name of the
 * directory the file system is mounted on ("/" for the root file system,
 * "proc" for /proc, "shm" for /dev/shm).
 */
typedef struct fileinfo {
	string	fi_name;	/* the file's name (its last path component) */
	string	fi_dirname;	/* its directory's name (last component) */
	string	fi_pathname;	/* its full path name */
	int64_t	fi_offset;	/* offset within the file */
	string	fi_fs;		/* file system type */
	string	fi_mount;	/* mount point's name (last component) */
	int	fi_oflags;	/* open(2) flags of the file descriptor */
} fileinfo_t;

/* open(2) flags, for fi_oflags: Linux's values on x86-64. */
inline int O_ACCMODE = 0003;
inline int O_RDONLY = 0;
inline int O_WRONLY = 0001;
inline int O_RDWR = 0002;
inline int O_CREAT = 0100;
inline int O_EXCL = 0200;
inline int O_NOCTTY = 0400;
inline int O_TRUNC = 01000;
inline int O_APPEND = 02000;
inline int O_NONBLOCK = 04000;
inline int O_NDELAY = 04000;
inline int O_DSYNC = 010000;
inline int O_ASYNC = 020000;
inline int O_DIRECT = 040000;
inline int O_LARGEFILE = 0100000;
inline int O_DIRECTORY = 0200000;
inline int O_NOFOLLOW = 0400000;
inline int O_NOATIME = 01000000;
inline int O_CLOEXEC = 02000000;
inline int O_SYNC = 04010000;
inline int O_RSYNC = 04010000;
inline int O_PATH = 010000000;

translator fileinfo_t < struct file *F > {
	fi_name = F == NULL ? "<none>" : stringof(F->f_path.dentry->d_name.name);
	fi_dirname = F == NULL ? "<none>" :
	    stringof(F->f_path.dentry->d_parent->d_name.name);
	fi_pathname = F == NULL ? "<none>" : d_path(&F->f_path);
	fi_offset = F == NULL ? 0 : F->f_pos;
	fi_fs = F == NULL ? "<none>" : stringof(F->f_path.mnt->mnt_sb->s_type->name);
	fi_mount = F == NULL ? "<none>" :
	    stringof(((struct mount *)((char *)F->f_path.mnt -
	    offsetof(struct mount, mnt)))->mnt_mountpoint->d_name.name);
	fi_oflags = F == NULL ? 0 : F->f_flags;
};

inline fileinfo_t fds[int fd] = xlate<fileinfo_t>(
    fd >= 0 && fd < curthread->files->fdt->max_fds ?
    curthread->files->fdt->fd[fd] : NULL);
#pragma D attributes Stable/Stable/Common fds
