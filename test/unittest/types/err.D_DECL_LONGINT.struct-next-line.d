/* long with a struct: found when the tag name and the token after it are read. */
long struct s
{
	int i;
};
