/*
 * Substring searches with needles longer than a machine word, that
 * match in part first, and from a given position either way.
 */
#pragma D option quiet

BEGIN
{
	printf("[%s]\n", strstr("abcdefghijabcdefghijXYZ", "abcdefghijX"));
	printf("%d %d %d\n", index("aaaaaaaaaaaaaaaaab", "aaaaaaaaab"),
	    index("xyzxyzxyzxyz", "zxyzx"), rindex("xyzxyzxyzxyz", "zxyzx"));
	printf("%d %d %d\n", index("abc", "abcd"), index("abcabcabc", "cab", 3),
	    rindex("abcabcabc", "cab", 4));
	exit(0);
}
