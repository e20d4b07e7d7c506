/*
 * A translated member that is an array is indexed as a value of its
 * own: curpsinfo->pr_fname[0] is the first character of the name.
 */
#pragma D option quiet

BEGIN
{
	printf("%c%c %d\n", curpsinfo->pr_fname[0], curlwpsinfo->pr_name[1],
	    curpsinfo->pr_fname[5] == 'e');
	exit(0);
}
