/* @@trigger: comm 615a405b607b7a3039 */
#pragma D option quiet

/*
 * toupper() and tolower() of a name read at run time, with the
 * characters either side of each alphabet ('@' '[' '`' '{'), which stay
 * as they are, and of a constant.
 */
syscall::getppid:entry
/pid == $target/
{
	printf("%s %s %s\n", toupper(execname), tolower(execname), toupper("abc-XYZ"));
}
