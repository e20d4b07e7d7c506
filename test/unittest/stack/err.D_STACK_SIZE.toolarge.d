/*
 * The kernel walks at most 127 frames of a stack: more is an error, not
 * a stack silently cut short.
 */
BEGIN
{
	trace(stack(200));
}
