/*
 * short and long together name no type: DTrace looks the combination up
 * by the name it makes of it ("short long "), and finds none.
 */
BEGIN
{
	trace((long short)0);
}
