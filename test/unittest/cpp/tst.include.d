/*
 * #include finds a file beside the script (dtrace runs in its directory
 * here) and through -I; -H lists what was included on standard error.
 */
/* @@runtest-opts: -C -I inc -H */
#pragma D option quiet
#include "cpp.h"
#include <other.h>

BEGIN
{
	printf("%s %d\n", GREETING, OTHER);
	exit(0);
}
