/*
 * With -C, errors name the line of the script, however cpp moved the
 * text (a long run of blank lines becomes a line marker).
 */
/* @@runtest-opts: -C */
#define TWICE(x) ((x) * 2)

BEGIN
{











	exit(TWICE(1), 2);
}
