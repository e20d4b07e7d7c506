/*
 * The string space of a ustack helper (a JVM's): there are none on
 * Linux, so only 0 is taken.
 */
BEGIN
{
	ustack(5, 256);
}
