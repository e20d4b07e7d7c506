/* %llx takes a long long, int64_t or uint64_t, not a pid_t. */
BEGIN
{
	printf("%llx\n", pid);
}
