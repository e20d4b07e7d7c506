/*
 * USDT probes of a library the command loads with dlopen() once it runs,
 * named by its file: made from the file where dlopen() will find it (here
 * beside the executable), they fire once the process maps it, with the
 * semaphore the kernel raises then.
 */
/* @@trigger: fixture dlopener @fixture:libusdtplug */

#pragma D option quiet

plug$target:libusdtplug.so::run
{
	printf("%s:%s %d %s\n", probemod, probename, args[0], stringof(args[1]));
}
