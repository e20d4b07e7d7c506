/*
 * A provider definition's translated arguments, as DTrace applies them:
 * args[] has the translated types, through a translator the program
 * defines (conninfo_t from the descriptor the probe passes).
 */
/* @@trigger: fixture xlapp */
#pragma D option quiet

typedef struct conninfo {
	int ci_fd;
	int ci_twice;
} conninfo_t;

translator conninfo_t < long fd > {
	ci_fd = fd;
	ci_twice = fd * 2;
};

xl$target:::req
{
	printf("%s %d %d %d\n", probename, args[0], args[1], sizeof (args[1]));
}

xl$target:::conn
{
	printf("%s fd=%d twice=%d\n", probename, args[0]->ci_fd,
	    args[0]->ci_twice);
}
