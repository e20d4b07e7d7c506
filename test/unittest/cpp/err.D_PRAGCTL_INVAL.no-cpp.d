/*
 * Without -C a preprocessor conditional is no directive D knows.
 */
BEGIN
{
	exit(0);
}

#if 0
#endif
