/* @@needs: fentry module:9p */
/* @@trigger: open /etc/hostname */
#pragma D option quiet

/*
 * A module's function, named by the module (9p, the file system the
 * kernel matrix's guests have their root on), typed from the module's
 * BTF.
 */
fbt:9p:v9fs_file_open:entry
/pid == $target/
{
	printf("%s:%s:%s:%s %s\n", probeprov, probemod, probefunc, probename,
	    args[1] != NULL ? "file" : "none");
	exit(0);
}
