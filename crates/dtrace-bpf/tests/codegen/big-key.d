/*
 * An aggregation key over the kernel's 512-byte hash key limit (two
 * strings at the default strsize): the tuple is built in scratch,
 * hashed (FNV-1a over words, folded), kept by its hash in dt_aggkeys_0
 * (added if new, compared word by word if not: a collision is an
 * aggregation drop), and the aggregation's key is the id and the hash.
 */
BEGIN
{
	a = "x";
	b = "y";
	@[a, b] = count();
}
