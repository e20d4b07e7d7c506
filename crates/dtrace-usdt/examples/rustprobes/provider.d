/*
 * The provider of the rustprobes example, as a D provider definition:
 * provider.rs beside it is what
 *   dtrace -h -s provider.d -o provider.rs
 * writes of it (a test checks that it still does).
 */
provider rustjobs {
	probe job__start(char *, unsigned long long);
	probe job__done(int);
};
