/*
 * json() takes a document and a selector.
 */
BEGIN
{
	json("{}");
}
