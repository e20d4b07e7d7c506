/* cpp's errors name the program /dev/stdin, without columns, and dtrace says the preprocessor failed. */
/* @@runtest-opts: -C */
#define

BEGIN
{
	exit(0);
}
