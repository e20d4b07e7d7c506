/* Keys keep the number of the array's first use. */
BEGIN
{
	x[123, 456] = timestamp;
}

END
{
	x[123, 456, 789] = timestamp;
}
