#pragma D option bufpolicy=ring

/* The ring policy is not yet supported: refused with the reason. */
BEGIN
{
	exit(0);
}
