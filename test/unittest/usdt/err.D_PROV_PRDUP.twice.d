/*
 * A provider declares each probe once.
 */
provider shapes {
	probe moved(int);
	probe moved(long);
};
