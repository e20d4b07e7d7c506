/* Keys keep the types of the array's first use. */
BEGIN
{
	x[123, "foo"] = timestamp;
}

END
{
	x[123, 456] = timestamp;
}
