/* @@trigger: exit 7 */
#pragma D option quiet

/* dtrace exits when its -c target exits, running END. */
END
{
	printf("end\n");
}
