/* @@trigger: read /proc/version */
#pragma D option quiet

/*
 * d_path() names a file by its whole path, across mount points (/proc is
 * a mount of its own); root is the process's root directory and cwd its
 * working directory, a path of its own.
 */
syscall::read:entry
/pid == $target && fds[arg0].fi_name == "version"/
{
	printf("%s\n", d_path(&curthread->files->fdt->fd[arg0]->f_path));
	printf("%s %s\n", root, d_path(&curthread->fs->root));
	printf("%d %d %d\n", cwd == d_path(&curthread->fs->pwd),
	    strlen(cwd) > 1, cwd != root);
	exit(0);
}
