/* A translated pointer has no storage to point to: store the
   translated value instead. */
BEGIN
{
	this->p = curpsinfo;
}
