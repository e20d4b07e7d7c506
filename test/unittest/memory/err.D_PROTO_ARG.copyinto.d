/*
 * copyinto() copies into scratch space a pointer names.
 */
BEGIN
{
	copyinto(0, 4, "x");
}
