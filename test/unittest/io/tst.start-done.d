/* @@needs: disk:/var/tmp */
/* @@trigger: fsync /var/tmp/dtrace-io-test */
#pragma D option quiet

/*
 * The target writes a file and syncs it: before the sync returns, a
 * write request is issued to the file system's disk (io:::start) and
 * completed (io:::done), with bufinfo_t and devinfo_t translated from
 * the request. Other processes' I/O may come too; only what every run
 * sees is printed.
 */
io:::start
/args[0]->b_flags & B_WRITE && args[1]->dev_statname != "<none>"/
{
	start = 1;
	bytes = args[0]->b_bcount > 0 && args[0]->b_bcount == args[0]->b_bufsize;
	dev = args[1]->dev_major > 0 && args[0]->b_edev != 0;
	file = args[2]->fi_name;
}

io:::done
/args[0]->b_flags & B_WRITE && args[1]->dev_statname != "<none>"/
{
	done = 1;
}

END
{
	printf("%d %d %d %d %s\n", start, done, bytes, dev, file);
}
