#pragma D option quiet
/* One CPU: tick-1ms moves to another CPU when its CPU stalls (a guest's
   CPU waiting its turn), and the clauses below count on one at a time. */
#pragma D option cpu=0

/*
 * basename() and dirname() as DTrace has them: trailing slashes are
 * not part of the name, a string of slashes is "/", an empty string or
 * a name without a slash has the directory ".". The strings are read
 * at run time (a global assigned each), so the generated scans run.
 */
string s[int];

BEGIN
{
	s[0] = "/a/b/c.d";
	s[1] = "/";
	s[2] = "";
	s[3] = "a";
	s[4] = "a/";
	s[5] = "/a";
	s[6] = "a/b//";
	s[7] = "//a//b";
	s[8] = "///";
	s[9] = "usr/lib";
	i = 0;
}

tick-1ms
/i < 10/
{
	printf("'%s' |%s|%s|\n", s[i], basename(s[i]), dirname(s[i]));
	i++;
}

tick-1ms
/i == 10/
{
	printf("%s %s %s\n", basename("/a/b/c.d"), strjoin("ab", "cd"),
	    substr("hello", 1, 3));
	exit(0);
}
