/* @@needs: disk:/etc */
/* @@trigger: read /etc/passwd */
#pragma D option quiet

/*
 * devinfo_t from the block device of a file on a disk-backed file system
 * (the root file system): the numbers and name agree with the super
 * block's, the driver has a name, and the members Linux cannot give have
 * DTrace for Linux's values.
 */
syscall::read:entry
/pid == $target && fds[arg0].fi_name == "passwd"/
{
	this->sb = curthread->files->fdt->fd[arg0]->f_inode->i_sb;
	printf("%d %d\n",
	    (xlate<devinfo_t>(this->sb->s_bdev).dev_major << 20 |
	    xlate<devinfo_t>(this->sb->s_bdev).dev_minor) == this->sb->s_dev,
	    xlate<devinfo_t *>(this->sb->s_bdev)->dev_major > 0);
	printf("%d %d\n",
	    xlate<devinfo_t>(this->sb->s_bdev).dev_statname == stringof(this->sb->s_id),
	    strlen(xlate<devinfo_t>(this->sb->s_bdev).dev_name) > 0);
	printf("%d %s\n", xlate<devinfo_t>(this->sb->s_bdev).dev_instance,
	    xlate<devinfo_t>(this->sb->s_bdev).dev_pathname);
	printf("%d %s\n", xlate<devinfo_t>((struct block_device *)NULL).dev_major,
	    xlate<devinfo_t>((struct block_device *)NULL).dev_statname);
}
