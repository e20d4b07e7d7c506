/*
 * Under the ring policy a clause's record waits in the ring's chunks
 * until the end, while its user stack's copy went to the principal
 * buffer: the copies are read first, so the stacks are there.
 */
/* @@trigger: fixture frames */
#pragma D option quiet
#pragma D option bufpolicy=ring

frames$target:::here
{
	ustack(2);
}
