/* A format that ends inside a conversion; %% before it counts. */
BEGIN
{
	printf("100%% of %");
}
